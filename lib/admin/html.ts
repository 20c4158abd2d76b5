/**
 * HTML by construction: the tagged template `html` escapes every interpolated value unless it is
 * already `Html` (markup this module built). Arrays are rendered item by item; `null`, `undefined`
 * and `false` render as nothing. Pages never put data into `<script>` or `<style>` bodies, event
 * attributes or unquoted attributes (docs/guides/admin-interface.md, security), so HTML escaping is the
 * only context there is.
 */

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}
