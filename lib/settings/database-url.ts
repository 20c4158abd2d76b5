/**
 * `DATABASE_URL` (docs/guides/getting-started.md): where the store lives — `postgres://…`, `memory://`, or a
 * directory for the embedded PGlite database. Read here for `ca-admin`, the example server and
 * `openDatabase()` without an argument; the store adapter parses what it is given.
 */
import type { Env } from './switch';

/** `DATABASE_URL` as given; null when unset (each reader's default: the data directory). */
export function databaseUrlSetting(env: Env): string | null {
  return env.DATABASE_URL ?? null;
}
