/**
 * How values appear inside validation messages, matching the wording API clients already parse: the
 * reference service builds its messages with Python's str()/repr() of values and pydantic models.
 */
import type { GeneralName, Name } from './types';

/** pydantic's text for a Literal mismatch: `'a'`, or `'a', 'b' or 'c'`. */
export function literalList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  if (quoted.length < 2) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** Text of a value inside an error message (Python's str() of it, as the original printed). */
export function show(v: unknown): string {
  if (typeof v === 'string') return v;
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
}

// ---------------------------------------------------------------------------------------------------
// Python repr(), for the uniqueness messages that start with `str(item)` of a pydantic model.

export function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + quote;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else out += ch;
  }
  return quote + out + quote;
}

export function pyValue(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return pyStr(v);
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return '[' + v.map(pyValue).join(', ') + ']';
  return String(v);
}

export function pyName(name: Name): string {
  const attrs = name.map((a) => `NameAttributeModel(oid=${pyStr(a.oid)}, value=${pyStr(a.value)})`);
  return `NameModel(root=[${attrs.join(', ')}])`;
}

export function pyGeneralName(gn: GeneralName): string {
  let value: string;
  if (gn.type === 'dirName') value = pyName(gn.value);
  else if (gn.type === 'otherName') {
    const o = gn.value;
    value = `OtherNameModel(oid=${pyStr(o.oid)}, type=${pyStr(o.type)}, value=${pyValue(o.value)})`;
  } else value = pyStr(gn.value);
  return `GeneralNameModel(type=${pyStr(gn.type)}, value=${value})`;
}

export function pyGeneralNames(list: GeneralName[] | null): string {
  return list === null ? 'None' : '[' + list.map(pyGeneralName).join(', ') + ']';
}
