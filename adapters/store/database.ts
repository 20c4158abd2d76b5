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
import * as fs from 'fs';
import * as path from 'path';
import type { Knex } from 'knex';
import type { PGlite, Extension } from '@electric-sql/pglite';
import { looseDataDirectoryWarning, prepareDataDirectory, tightenDataDirectory } from './data-directory-modes';
import { acquireDirectoryLock } from './directory-lock';
import { connectionFailureMessage } from './knex/errors';
import { PgliteThread } from './pglite-thread';
import { databaseUrlSetting } from '../../lib/settings/database-url';
import { environment } from '../../lib/settings/environment';

export { DatabaseInUseError } from './directory-lock';

/**
 * The drivers, loaded on first use rather than with this module: knex alone is some 300 modules, and
 * whoever is refused an embedded directory that another process holds (directory-lock.ts) should hear
 * so at once, without waiting for them (a `ca-admin` command beside a running server).
 * (require, not import(): with module node16 a dynamic import() stays an ES import.)
 */
function drivers(): {
  knex: typeof import('knex').knex;
  PGlite: typeof import('@electric-sql/pglite').PGlite;
  ClientPgLite: typeof import('knex-pglite');
  pg_trgm: Extension;
} {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    knex: (require('knex') as typeof import('knex')).knex,
    PGlite: (require('@electric-sql/pglite') as typeof import('@electric-sql/pglite')).PGlite,
    ClientPgLite: require('knex-pglite') as typeof import('knex-pglite'),
    // The contrib entry point declares its types for ESM importers only; its CommonJS build is the same.
    pg_trgm: (require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension }).pg_trgm,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

export const DEFAULT_DATA_DIRECTORY = './.ca-data';

export type DatabaseTarget =
  { kind: 'postgres'; url: string } | { kind: 'pglite-memory' } | { kind: 'pglite-directory'; directory: string };

/** `url`, else `DATABASE_URL` as lib/settings reads it, else `./.ca-data`, as a target to open. */
export function parseDatabaseUrl(url?: string): DatabaseTarget {
  const value = url ?? databaseUrlSetting(environment()) ?? DEFAULT_DATA_DIRECTORY;
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value };
  if (value === 'memory://' || value === 'memory:') return { kind: 'pglite-memory' };
  const directory = value.startsWith('file://') ? value.slice('file://'.length) : value;
  if (!directory) throw new Error('Empty database location: give a postgres:// URL, memory:// or a directory');
  return { kind: 'pglite-directory', directory: path.resolve(directory) };
}

export interface DatabaseOptions {
  /** PostgreSQL schema to work in (`search_path`). */
  searchPath?: string;
  /**
   * Embedded PGlite only: run the database on its own thread (pglite-thread.ts) so that its work does
   * not occupy the event loop. Default true; false runs PGlite on the calling thread.
   */
  pgliteThread?: boolean;
  /**
   * `memory://` only: start the new database from this file, a tar written by PGlite's
   * `dumpDataDir()` (same PGlite version), instead of from an empty cluster. That skips initdb, which
   * costs seconds of CPU per database: the test suite starts each of its in-memory databases from one
   * migrated snapshot this way.
   */
  pgliteSnapshot?: string;
  /**
   * Where a warning goes (default `console.warn`): an embedded data directory that other users may
   * enter is opened, with the command that makes it private (data-directory-modes.ts).
   */
  warn?: (message: string) => void;
  /**
   * How long a query waits for the database's connection before it fails as unavailable (docs/operations/hostile-clients-and-outages.md "Outages"),
   * in milliseconds. Default 5000 on PostgreSQL (also the limit of a connection attempt);
   * knex's 60000 on embedded PGlite, whose one connection a long transaction holds. Opening a new
   * embedded database waits for its first-time setup however long that takes, never this long.
   */
  connectTimeoutMs?: number;
  /**
   * Embedded PGlite only: PostgreSQL's `shared_buffers` for this session (a size such as `'16MB'`;
   * default PGlite's 128MB). PostgreSQL clears its whole buffer pool at start, so the setting is paid
   * for in memory and start-up time whether or not the pages are used: a short-lived process that reads
   * a few pages (a `ca-admin` command) asks for a small pool. Nothing is written to the database's
   * configuration.
   */
  pgliteSharedBuffers?: string;
}

/** How long a request waits for a PostgreSQL connection before it is told the database is unavailable. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * The knex configuration for a target. For PGlite, `pglite` is the instance to use (e.g. a
 * `PgliteThread`); without it knex-pglite opens PGlite on the calling thread. `connectTimeoutMs`: see
 * DatabaseOptions.
 */
export function knexConfig(
  target: DatabaseTarget,
  options: { searchPath?: string; pglite?: unknown; connectTimeoutMs?: number } = {},
): Knex.Config {
  const searchPath = options.searchPath ? { searchPath: [options.searchPath] } : {};
  const wait = options.connectTimeoutMs;
  const pgliteWait = { log: { warn: knexWarning }, ...(wait === undefined ? {} : { acquireConnectionTimeout: wait }) };
  // knex's types do not know knex-pglite's `pglite` connection field.
  const instance = (options.pglite ? { pglite: options.pglite } : {}) as Knex.StaticConnectionConfig;
  switch (target.kind) {
    case 'postgres':
      // Fail fast in an outage (docs/operations/hostile-clients-and-outages.md "Outages"): a request waits at most this long for a connection
      // (knex's default is 60 s) and a connection attempt to an unresponsive host at most this long.
      return {
        client: 'pg',
        connection: { connectionString: target.url, connectionTimeoutMillis: wait ?? CONNECT_TIMEOUT_MS, keepAlive: true },
        acquireConnectionTimeout: wait ?? CONNECT_TIMEOUT_MS,
        log: { warn: knexWarning },
        ...searchPath,
      };
    case 'pglite-memory':
      return { client: drivers().ClientPgLite, dialect: 'postgres', connection: { ...instance }, ...pgliteWait, ...searchPath };
    case 'pglite-directory':
      return {
        client: drivers().ClientPgLite,
        dialect: 'postgres',
        connection: { filename: target.directory, ...instance },
        ...pgliteWait,
        ...searchPath,
      };
  }
}

/**
 * knex's warnings, but for its "Acquire connection error: <stack>" on every failed connection attempt:
 * in an outage that is a line per request on the host's console. The failure reaches the caller as an
 * error, which the router reports once (docs/operations/hostile-clients-and-outages.md "Outages").
 */
function knexWarning(message: string): void {
  if (!String(message).startsWith('Acquire connection error')) console.warn(message);
}

/**
 * A connected knex instance. The first query runs here so that an unreachable server, bad
 * credentials or an unusable data directory fail now, with the location in the message (never the
 * password of a URL).
 */
export async function openDatabase(url?: string, options: DatabaseOptions = {}): Promise<Knex> {
  const target = parseDatabaseUrl(url);
  const dataDir = target.kind === 'pglite-directory' ? target.directory : undefined;
  // A new data directory is made private before PGlite writes into it; an existing one that others
  // may enter is left alone, with a warning (see data-directory-modes.ts).
  const privateDir = dataDir !== undefined && prepareDataDirectory(dataDir).private;
  const loose = dataDir !== undefined && !privateDir ? looseDataDirectoryWarning(dataDir) : null;
  const warn = options.warn ?? console.warn;
  if (loose) warn(loose);
  const tighten = () => {
    const failed = privateDir ? tightenDataDirectory(dataDir) : [];
    if (failed.length) warn(`Could not make ${failed.length} file(s) of ${dataDir} private, e.g. ${failed[0]}: chmod -R go= ${dataDir}`);
  };
  if (options.pgliteSnapshot !== undefined && target.kind !== 'pglite-memory')
    throw new Error('pgliteSnapshot applies to a new in-memory database (memory://) only');
  // An embedded data directory is held for as long as the connection is open (see directory-lock.ts).
  // Taken before the drivers are even loaded: a directory another process holds is refused at once.
  const lock = dataDir !== undefined ? acquireDirectoryLock(dataDir) : null;
  // A cluster PGlite is about to create (initdb) rather than resume: its files are the loose ones.
  const newCluster = dataDir !== undefined && !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  const { knex, PGlite, pg_trgm } = drivers();
  const snapshot = options.pgliteSnapshot;
  const sharedBuffers = options.pgliteSharedBuffers;
  // Either way with the extensions the migrations use (pglite-thread.ts loads the same).
  const pglite =
    target.kind === 'postgres'
      ? null
      : (options.pgliteThread ?? true)
        ? new PgliteThread(dataDir, snapshot, sharedBuffers)
        : new PGlite({
            dataDir,
            extensions: { pg_trgm },
            ...(sharedBuffers ? { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`] } : {}),
            ...(snapshot ? { loadDataDir: new Blob([fs.readFileSync(snapshot)]) } : {}),
          });
  if (pglite) {
    // A new embedded database is set up first (initdb: seconds of CPU, a minute on a loaded machine).
    // knex's pool gives up on a connection that is not ready within its create timeout (30 s) or its
    // acquire timeout, and closes it: the pool gets the database once it is ready, so the first start
    // does not time out however slow the machine.
    try {
      await pglite.waitReady;
    } catch (e) {
      await pglite.close().catch(() => undefined);
      lock?.release();
      throw openError(target, e);
    }
  }
  const db = knex(
    knexConfig(target, { searchPath: options.searchPath, connectTimeoutMs: options.connectTimeoutMs, ...(pglite ? { pglite } : {}) }),
  );
  if (pglite)
    embedded.set(db, { dump: async () => (pglite instanceof PgliteThread ? pglite.dumpDataDir() : dumpOnThisThread(pglite)), dataDir });
  if (lock) {
    // knex.destroy() ends in client.destroy(); the instance's own `destroy` is read-only.
    const client = db.client as { destroy: (callback?: unknown) => Promise<void> };
    const destroy = client.destroy.bind(client);
    client.destroy = async (callback?: unknown) => {
      try {
        await destroy(callback);
        tighten(); // whatever PGlite wrote meanwhile
      } finally {
        lock.release();
      }
    };
  }
  try {
    await db.raw('select 1');
  } catch (e) {
    await db.destroy().catch(() => undefined);
    throw openError(target, e);
  }
  // A new cluster's files, unpacked by PGlite with mode 0666. An existing cluster's files were
  // tightened when it was last closed, and are again when this connection closes: walking its ~1000
  // files here as well would cost every open (a `ca-admin` command) a tenth of a second for nothing.
  if (newCluster) tighten();
  return db;
}

/** The embedded databases opened here, by their knex: what a backup dumps (embedded-backup.ts). */
const embedded = new WeakMap<Knex, { dump(): Promise<Buffer>; dataDir: string | undefined }>();

async function dumpOnThisThread(pglite: PGlite): Promise<Buffer> {
  return Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer());
}

/**
 * The embedded (PGlite) database behind `db` as a gzipped tar of its data directory, taken while no
 * statement runs (PGlite's `dumpDataDir` holds its query lock): a consistent image, which PostgreSQL's
 * crash recovery completes when it is opened (a transaction open at that moment is rolled back). Null
 * for a database on a PostgreSQL server, whose backups are pg_dump's (docs/operations/backup-restore.md).
 */
export function embeddedDatabaseOf(db: Knex): { dump(): Promise<Buffer>; dataDir: string | undefined } | null {
  return embedded.get(db) ?? null;
}

/** Why the database at `target` cannot be opened, in our words (connectionFailureMessage). */
function openError(target: DatabaseTarget, e: unknown): Error {
  // knex's timeout error carries its hint in its message: the pool's own error is the cause then.
  const knexTimeout = (e as { name?: unknown } | null)?.name === 'KnexTimeoutError';
  const cause = knexTimeout ? (e as { cause?: unknown }).cause : e;
  return new Error(`Cannot open the database at ${describeTarget(target)}: ${connectionFailureMessage(e)}`, { cause });
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
