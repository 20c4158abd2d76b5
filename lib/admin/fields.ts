/**
 * The form fields the admin interface's edit forms share (docs/guides/admin-interface.md): each a labelled
 * control, its label tied to it by `for`/`id` (WCAG 2.1 §1.3.1, which the browser test's axe checks).
 */
import { html, type Html } from './html';

export const textField = (name: string, label: string, value: string): Html =>
  html`<div class="field"><label for="${name}">${label}</label><input id="${name}" name="${name}" size="60" value="${value}" /></div>`;

/** A checkbox sent as `on` when checked; an unchecked one is not sent at all (HTML's form submission). */
export const checkbox = (name: string, label: string, checked: boolean): Html =>
  html`<div class="field">
    <input type="checkbox" id="${name}" name="${name}" value="on" ${checked ? html` checked` : null} />
    <label for="${name}" class="inline">${label}</label>
  </div>`;

/** A name policy's allow or deny list (lib/ca/name-policy/entries.ts), one entry per line. */
export const namesField = (name: string, label: string, names: string[]): Html =>
  html`<div class="field">
    <label for="${name}">${label} (one DNS suffix, IP address or network per line)</label
    ><textarea id="${name}" name="${name}" rows="3" cols="60">${names.join('\n')}</textarea>
  </div>`;
