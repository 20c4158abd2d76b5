/**
 * Backups of an embedded (PGlite) database, and their restore (docs/operations/backup-restore.md).
 *
 * A backup is PGlite's `dumpDataDir`: a gzipped tar of the data directory taken while no statement
 * runs (database.ts `embeddedDatabaseOf`), cut down to PostgreSQL's own files (backup-tar.ts: never the
 * development key-encryption key kept beside them). Restoring unpacks it into a new, empty directory;
 * PostgreSQL's crash recovery completes the image on first open, as after a power cut.
 *
 * An embedded database serves one process (directory-lock.ts). While a server holds it, `ca-admin
 * backup` cannot open it, so it asks the server: a server that called `answerBackupRequests` says so
 * in a file beside the lock and writes a backup when a request file appears in the directory. The
 * statements that arrive while it dumps wait (PGlite's query lock), none is refused.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { Knex } from 'knex';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { postgresEntriesOnly } from './backup-tar';
import { DatabaseInUseError, embeddedDatabaseOf, openDatabase, parseDatabaseUrl } from './database';
import { LOCK_FILE_NAME } from './directory-lock';
import { tightenDataDirectory } from './data-directory-modes';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

/** Beside the lock: the pid of a holder that takes backup requests. */
export const BACKUP_ANSWERER_FILE = 'express-ca-api.backups';
const REQUEST_PREFIX = 'express-ca-api.backup-request.';
const ANSWER_PREFIX = 'express-ca-api.backup-answer.';
/** How long `ca-admin backup` waits for a running server's backup. */
const ANSWER_TIMEOUT_MS = 120_000;

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

export interface BackupWritten {
  file: string;
  bytes: number;
  /** `null`: this process opened the database; else the pid of the server that wrote the backup. */
  byProcess: number | null;
}

/** Write `data` to `file` (private: it holds the encrypted CA keys and password hashes), never half a file. */
function writeWhole(file: string, data: Buffer): void {
  const partial = `${file}.partial-${randomBytes(4).toString('hex')}`;
  try {
    fs.writeFileSync(partial, data, { mode: 0o600, flag: 'wx' });
    fs.renameSync(partial, file);
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

/** The backup of an opened embedded database into `file`, which must not exist yet. */
export async function writeEmbeddedBackup(db: Knex, file: string): Promise<number> {
  const database = embeddedDatabaseOf(db);
  if (!database)
    throw new BackupError('Not an embedded (PGlite) database: back up PostgreSQL with pg_dump (docs/operations/backup-restore.md).');
  if (fs.existsSync(file)) throw new BackupError(`${file} exists: a backup never overwrites a file; name a new one.`);
  const tar = postgresEntriesOnly(await database.dump());
  writeWhole(file, tar);
  return tar.length;
}

/**
 * `ca-admin backup FILE`: the embedded database of `databaseUrl` into `file`, opened here, or, when a
 * server holds it, written by that server on request.
 */
export async function backupEmbeddedDatabase(databaseUrl: string | undefined, file: string): Promise<BackupWritten> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.kind === 'postgres')
    throw new BackupError(
      'DATABASE_URL names a PostgreSQL server: back it up with pg_dump, or base backups and WAL archiving (docs/operations/backup-restore.md "PostgreSQL").',
    );
  if (target.kind !== 'pglite-directory') throw new BackupError('An in-memory database (memory://) has nothing to back up.');
  const absolute = path.resolve(file);
  if (fs.existsSync(absolute)) throw new BackupError(`${file} exists: a backup never overwrites a file; name a new one.`);
  if (!fs.existsSync(path.join(target.directory, 'PG_VERSION')))
    throw new BackupError(`${target.directory} holds no embedded database (no PG_VERSION).`);
  let db: Knex;
  try {
    db = await openDatabase(target.directory, { warn: () => undefined });
  } catch (e) {
    if (e instanceof DatabaseInUseError) return askHolder(target.directory, e, absolute);
    throw e;
  }
  try {
    return { file: absolute, bytes: await writeEmbeddedBackup(db, absolute), byProcess: null };
  } finally {
    await db.destroy();
  }
}

/** The running holder of `directory` writes the backup; refused if it does not take requests. */
async function askHolder(directory: string, inUse: DatabaseInUseError, file: string): Promise<BackupWritten> {
  let answerer: number | null = null;
  try {
    answerer = Number.parseInt(fs.readFileSync(path.join(directory, BACKUP_ANSWERER_FILE), 'utf8'), 10);
  } catch {
    // it takes no requests
  }
  if (answerer !== inUse.pid)
    throw new BackupError(
      `${inUse.message} That process takes no backup requests (a host that wants them calls answerBackupRequests, as the example server does): stop it for the backup.`,
    );
  const nonce = randomBytes(8).toString('hex');
  const request = path.join(directory, REQUEST_PREFIX + nonce);
  const answer = path.join(directory, ANSWER_PREFIX + nonce);
  writeWhole(request, Buffer.from(JSON.stringify({ file })));
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  try {
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      let text: string;
      try {
        text = fs.readFileSync(answer, 'utf8');
      } catch {
        continue;
      }
      const reply = JSON.parse(text) as { ok: boolean; bytes?: number; error?: string };
      if (!reply.ok) throw new BackupError(`Process ${answerer} could not write the backup: ${reply.error ?? 'unknown error'}`);
      return { file, bytes: reply.bytes ?? fs.statSync(file).size, byProcess: answerer };
    }
    throw new BackupError(`Process ${answerer} did not answer the backup request within ${ANSWER_TIMEOUT_MS / 1000} s.`);
  } finally {
    fs.rmSync(request, { force: true });
    fs.rmSync(answer, { force: true });
  }
}

export interface BackupAnswerer {
  /** Stops taking requests (before the database is closed). */
  close(): void;
}

/**
 * Take backup requests for the embedded database `db` while this process holds it: `ca-admin backup
 * FILE` then works while the server runs. Only someone who may write into the data directory (its
 * owner: it is private, docs/guides/getting-started.md) can ask. No-op for PostgreSQL and `memory://`.
 */
export function answerBackupRequests(db: Knex, options: { log?: (line: string) => void } = {}): BackupAnswerer {
  const directory = embeddedDatabaseOf(db)?.dataDir;
  if (!directory) return { close: () => undefined };
  const log = options.log ?? (() => undefined);
  const marker = path.join(directory, BACKUP_ANSWERER_FILE);
  fs.writeFileSync(marker, String(process.pid), { mode: 0o600 });
  const seen = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  const answer = async (name: string): Promise<void> => {
    const nonce = name.slice(REQUEST_PREFIX.length);
    let reply: { ok: boolean; bytes?: number; error?: string };
    try {
      const { file } = JSON.parse(fs.readFileSync(path.join(directory, name), 'utf8')) as { file: string };
      if (typeof file !== 'string' || !path.isAbsolute(file)) throw new BackupError('the request names no absolute file');
      const bytes = await writeEmbeddedBackup(db, file);
      log(`Wrote a backup of the embedded database to ${file} (${bytes} bytes).`);
      reply = { ok: true, bytes };
    } catch (e) {
      reply = { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    writeWhole(path.join(directory, ANSWER_PREFIX + nonce), Buffer.from(JSON.stringify(reply)));
  };
  const look = (): void => {
    let names: string[];
    try {
      names = fs.readdirSync(directory).filter((n) => n.startsWith(REQUEST_PREFIX) && !n.includes('.partial-'));
    } catch {
      return;
    }
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      queue = queue.then(() => answer(name)); // one dump at a time
    }
  };
  const watcher = fs.watch(directory, { persistent: false }, () => look());
  watcher.on('error', () => undefined);
  look();
  return {
    close: () => {
      watcher.close();
      fs.rmSync(marker, { force: true });
    },
  };
}

/**
 * `ca-admin restore FILE DIR`: a backup unpacked into `directory`, which must be new or empty (never
 * over a database). On failure nothing is left in it.
 */
export async function restoreEmbeddedBackup(file: string, directory: string): Promise<void> {
  const target = path.resolve(directory);
  const existed = fs.existsSync(target);
  if (existed && fs.readdirSync(target).length)
    throw new BackupError(`${directory} is not empty: restore into a new directory (a restore never writes over a database).`);
  let dump: Buffer;
  try {
    dump = fs.readFileSync(file);
  } catch (e) {
    throw new BackupError(`Cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    postgresEntriesOnly(dump); // a readable backup of a database, before anything is written
  } catch (e) {
    throw new BackupError(`${file} is not a backup written by ca-admin backup: ${(e as Error).message}`);
  }
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  try {
    const pglite = new PGlite({ dataDir: target, extensions: { pg_trgm }, loadDataDir: new Blob([dump]) });
    await pglite.waitReady;
    await pglite.query('select 1');
    await pglite.close();
    tightenDataDirectory(target);
  } catch (e) {
    if (existed) for (const name of fs.readdirSync(target)) fs.rmSync(path.join(target, name), { recursive: true, force: true });
    else fs.rmSync(target, { recursive: true, force: true });
    throw new BackupError(`Could not restore ${file} into ${directory}: ${(e as Error).message}`);
  }
  if (fs.existsSync(path.join(target, LOCK_FILE_NAME))) fs.rmSync(path.join(target, LOCK_FILE_NAME));
}
