/**
 * Objects found by (CA, slug), several at once: the grouped reads of acme/grouped-reads.ts ask for the
 * keys of concurrent requests in one statement and hand each caller its own row.
 */
import type { Row } from '../rows';
import { toNumber } from '../values';

export interface SlugKey {
  caId: number;
  slug: string;
}

/** `[ca_id, slug]` pairs for a two-column `whereIn`. */
export function tuples(keys: readonly SlugKey[]): [number, string][] {
  return keys.map((k) => [k.caId, k.slug]);
}

/** For each key in order, the record of the row whose (CA, slug) — as `keyOf` reads them — match; null where none does. */
export function matchKeys<R>(
  keys: readonly SlugKey[],
  rows: Row[],
  keyOf: (row: Row) => [unknown, unknown],
  record: (row: Row) => R,
): (R | null)[] {
  const byKey = new Map<string, Row>();
  for (const row of rows) {
    const [caId, slug] = keyOf(row);
    byKey.set(`${toNumber(caId)}/${String(slug)}`, row);
  }
  return keys.map((k) => {
    const row = byKey.get(`${k.caId}/${k.slug}`);
    return row ? record(row) : null;
  });
}
