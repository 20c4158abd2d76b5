/**
 * Open the database a store lives in, from one URL:
 * - `postgres://…` / `postgresql://…` → PostgreSQL through `pg` (any number of processes);
 * - `memory://` → a fresh in-memory PGlite (tests, demos);
 * - anything else → a directory holding an embedded PGlite database, created on first use
 *   (`file://` prefix optional). Default: `DATABASE_URL`, else `./.ca-data`.
 *
 * PGlite is PostgreSQL compiled to WebAssembly: same SQL, same migrations, but one connection in one
 * process; a directory is locked while open, so a second process gets a clear DatabaseInUseError.
 */
import * as path from 'path';
import knex, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { acquireDirectoryLock } from './directory-lock';

export { DatabaseInUseError } from './directory-lock';

export const DEFAULT_DATA_DIRECTORY = './.ca-data';

export type DatabaseTarget =
  | { kind: 'postgres'; url: string }
  | { kind: 'pglite-memory' }
  | { kind: 'pglite-directory'; directory: string };

export function parseDatabaseUrl(url?: string): DatabaseTarget {
  const value = url ?? process.env.DATABASE_URL ?? DEFAULT_DATA_DIRECTORY;
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value };
  if (value === 'memory://' || value === 'memory:') return { kind: 'pglite-memory' };
  const directory = value.startsWith('file://') ? value.slice('file://'.length) : value;
  if (!directory) throw new Error('Empty database location: give a postgres:// URL, memory:// or a directory');
  return { kind: 'pglite-directory', directory: path.resolve(directory) };
}

export function knexConfig(target: DatabaseTarget, options: { searchPath?: string } = {}): Knex.Config {
  const searchPath = options.searchPath ? { searchPath: [options.searchPath] } : {};
  switch (target.kind) {
    case 'postgres':
      return { client: 'pg', connection: target.url, ...searchPath };
    case 'pglite-memory':
      return { client: ClientPgLite, dialect: 'postgres', connection: {}, ...searchPath };
    case 'pglite-directory':
      return { client: ClientPgLite, dialect: 'postgres', connection: { filename: target.directory }, ...searchPath };
  }
}

/**
 * A connected knex instance. The first query runs here so that an unreachable server, bad
 * credentials or an unusable data directory fail now, with the location in the message (never the
 * password of a URL).
 */
export async function openDatabase(url?: string, options: { searchPath?: string } = {}): Promise<Knex> {
  const target = parseDatabaseUrl(url);
  // An embedded data directory is held for as long as the connection is open (see directory-lock.ts).
  const lock = target.kind === 'pglite-directory' ? acquireDirectoryLock(target.directory) : null;
  const db = knex(knexConfig(target, options));
  if (lock) {
    // knex.destroy() ends in client.destroy(); the instance's own `destroy` is read-only.
    const client = db.client as { destroy: (callback?: unknown) => Promise<void> };
    const destroy = client.destroy.bind(client);
    client.destroy = async (callback?: unknown) => {
      try {
        await destroy(callback);
      } finally {
        lock.release();
      }
    };
  }
  try {
    await db.raw('select 1');
  } catch (e) {
    await db.destroy().catch(() => undefined);
    throw new Error(`Cannot open the database at ${describeTarget(target)}: ${(e as Error).message}`, { cause: e });
  }
  return db;
}

export function describeTarget(target: DatabaseTarget): string {
  switch (target.kind) {
    case 'postgres':
      return redactPassword(target.url);
    case 'pglite-memory':
      return 'memory:// (embedded PGlite)';
    case 'pglite-directory':
      return `${target.directory} (embedded PGlite)`;
  }
}

function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'a postgres:// URL';
  }
}
