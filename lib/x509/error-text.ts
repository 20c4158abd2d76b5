/** How values appear inside validation messages, matching the wording API clients already parse. */

/** pydantic's text for a Literal mismatch: `'a', 'b' or 'c'`. */
export function literalList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** Text of a value inside an error message (Python's str() of it, as the original printed). */
export function show(v: unknown): string {
  if (typeof v === 'string') return v;
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
}
