/**
 * The validity window: when a CA or certificate counts as "currently valid".
 *
 * One rule, written once, used by the API's visibility checks, the store's list filters (as the same
 * comparison, through `VALIDITY_WINDOW`) and the CLI: `not_before < now <= not_after`. That is the
 * window of the original's `.valid()` querysets, which clients of the API observe (an expired CA
 * disappears from `GET /ca/` the instant after its `not_after`, not at it). RFC 5280 §4.1.2.5 calls
 * both ends inclusive; the two differ only at the very instant of `not_before`, and compatibility wins
 * there. `test/ca/validity.test.ts` pins both boundary instants for every caller.
 */

/** The window as comparisons of a timestamp column against `now`, for query builders. */
export const VALIDITY_WINDOW = {
  /** `not_before < now` */
  notBefore: { column: 'not_before', op: '<' },
  /** `not_after >= now`, i.e. `now <= not_after` */
  notAfter: { column: 'not_after', op: '>=' },
} as const;

export interface ValidityPeriod {
  notBefore: Date;
  notAfter: Date;
}

/** `not_before < now <= not_after` (see the file header). */
export function isWithinValidity(record: ValidityPeriod, now: Date): boolean {
  return record.notBefore < now && now <= record.notAfter;
}
