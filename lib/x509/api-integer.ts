/**
 * Integers between DER and the API's JSON. A JSON number is exact only up to 2^53 − 1, so values
 * read from certificates become numbers when they fit and bigints otherwise (or, for fields whose
 * API type is a small count, are refused as not representable).
 */
import { parseError } from './errors';

/** A number when `v` is a safe integer, else the bigint itself. */
export function toApiInteger(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** A decoded non-negative INTEGER that fits a JS number exactly; anything else is a parse error. */
export function readSmallNonNegative(value: bigint, what: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw parseError(`${what}: out of range`);
  return Number(value);
}
