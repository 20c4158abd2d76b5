/**
 * Strings the REST API refuses as input (docs/reference/differences.md D16), found anywhere in a parsed body or query: a
 * lone UTF-16 surrogate, which no JSON encoder can write back as UTF-8 and no database column can
 * store (`JSON.parse` accepts `"\ud800"`), or a NUL character, which PostgreSQL's text types cannot
 * hold (and which no certificate field needs). lib/api/validation.ts reports them as 422 items.
 */
import type { Loc } from '../http/http-errors';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `String.prototype.isWellFormed` (ES2024), spelled out for the ES2022 lib. */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/** Why a string is unusable as input (see the file header). */
export type BadText = 'surrogate' | 'nul';

export function badText(s: string): BadText | null {
  if (!isWellFormed(s)) return 'surrogate';
  if (s.includes('\u0000')) return 'nul';
  return null;
}

/**
 * Every string (value or key) of `value` that is bad text, with its location, in document order.
 * Iterative; `value` is depth-checked already (`MAX_JSON_DEPTH` of lib/http/body.ts).
 */
export function findBadText(value: unknown): { loc: Loc; bad: BadText }[] {
  const found: { loc: Loc; bad: BadText }[] = [];
  const stack: [unknown, Loc][] = [[value, []]];
  while (stack.length) {
    const [node, loc] = stack.pop() as [unknown, Loc];
    if (typeof node === 'string') {
      const bad = badText(node);
      if (bad) found.push({ loc, bad });
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], [...loc, i]]);
    } else if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i];
        const bad = badText(k);
        // A bad key is reported once, where it stands; what it holds is not looked at.
        stack.push(bad ? [k, [...loc, k]] : [v, [...loc, k]]);
      }
    }
  }
  return found;
}
