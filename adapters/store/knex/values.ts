/**
 * Normalising what the two drivers return. `pg` and PGlite agree on most types but not all:
 * bigint/count columns come back as strings from `pg` and as numbers from PGlite, bytea as `Buffer`
 * from `pg` and as a plain `Uint8Array` from PGlite. Everything the store hands out goes through here.
 *
 * Values may also come from another JavaScript realm (rows copied from the PGlite thread are built by
 * the host realm, which is not the realm of code under a test runner's sandbox): they are recognised
 * with `util.types`, not `instanceof`, and rebuilt in this realm.
 */
import { types } from 'util';

export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' || typeof value === 'bigint') return Number(value);
  throw new TypeError(`Expected a number from the database, got ${typeof value}`);
}

export function toNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}

export function toBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (types.isUint8Array(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`Expected bytes from the database, got ${typeof value}`);
}

export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (types.isDate(value)) return new Date(value.getTime());
  if (typeof value === 'string' || typeof value === 'number') return new Date(value);
  throw new TypeError(`Expected a timestamp from the database, got ${typeof value}`);
}

export function toNullableDate(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

/** json/jsonb columns arrive parsed from both drivers; a string means a driver left it raw. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function fromNullableJson<T>(value: unknown): T | null {
  return value === null || value === undefined ? null : fromJson<T>(value);
}

/**
 * JSON goes to the database as text: `pg` would otherwise send a JS array as a PostgreSQL array
 * literal, and the text form keeps the key order that `json` columns preserve.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

export function toNullableJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
