/**
 * One migrated in-memory PGlite database, saved as a tar (PGlite's `dumpDataDir`), that the suite's
 * in-memory test databases start from (`openDatabase(..., { pgliteSnapshot })`).
 *
 * Why: a new PGlite runs initdb and then our migrations, about 5 s of CPU; the suite opens well over
 * a hundred of them, on a machine whose two cores the whole run keeps busy. Starting from the
 * snapshot takes about a second. The database is the same one: the snapshot is made by running the
 * real migrations on a real PGlite, and the test's own `migrate()` still runs (and finds nothing to do).
 *
 * The file lives in os.tmpdir(), named by a hash of PGlite's version and every migration's source,
 * so a changed migration makes a new snapshot. Written to a temporary name and renamed: two jest
 * workers making it at once both succeed, and nobody reads half a file.
 */
import { PGlite, type Extension } from '@electric-sql/pglite';
import { createHash } from 'crypto';
import * as fs from 'fs';
import knex from 'knex';
import * as os from 'os';
import * as path from 'path';
import { knexConfig, openDatabase } from '../../adapters/store/database';
import { knexStore } from '../../adapters/store/knex';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

const ROOT = path.resolve(__dirname, '../..');
const MIGRATIONS = path.join(ROOT, 'adapters/store/knex/migrations');

function snapshotKey(): string {
  const hash = createHash('sha256');
  // Its package.json is not in its exports map: read from where npm put it.
  const manifest = path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json');
  hash.update(JSON.parse(fs.readFileSync(manifest, 'utf8')).version as string);
  for (const name of fs.readdirSync(MIGRATIONS).sort()) hash.update(`\0${name}\0`).update(fs.readFileSync(path.join(MIGRATIONS, name)));
  return hash.digest('hex').slice(0, 16);
}

function snapshotPath(): string {
  return path.join(os.tmpdir(), `express-ca-api-pglite-${snapshotKey()}.tar`);
}

async function makeSnapshot(file: string): Promise<void> {
  const pglite = new PGlite({ extensions: { pg_trgm } });
  const db = knex(knexConfig({ kind: 'pglite-memory' }, { pglite }));
  try {
    await knexStore(db).migrate();
    const tar = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(temporary, tar);
    fs.renameSync(temporary, file);
  } finally {
    await db.destroy();
    await pglite.close().catch(() => undefined);
  }
}

let made: Promise<string> | null = null;

/** The snapshot's path, made first if this machine has none for these migrations. */
export function migratedPgliteSnapshot(): Promise<string> {
  made ??= (async () => {
    const file = snapshotPath();
    if (!fs.existsSync(file)) await makeSnapshot(file);
    return file;
  })();
  return made;
}

/**
 * A migrated PGlite *directory* (made by `openDatabase(directory)` and our migrations, then closed),
 * for the example server's child processes: copied into a new CA_DATA_DIR before the child starts,
 * the child finds a database to resume instead of running initdb (test/examples/child-server.ts).
 */
let madeDirectory: Promise<string> | null = null;
export function migratedPgliteDirectory(): Promise<string> {
  madeDirectory ??= (async () => {
    const directory = path.join(os.tmpdir(), `express-ca-api-pglite-dir-${snapshotKey()}`);
    if (fs.existsSync(directory)) return directory;
    const building = `${directory}.${process.pid}.${Date.now()}.tmp`;
    const db = await openDatabase(building, { warn: () => undefined });
    try {
      await knexStore(db).migrate();
    } finally {
      await db.destroy();
    }
    try {
      fs.renameSync(building, directory);
    } catch {
      fs.rmSync(building, { recursive: true, force: true }); // another worker made it meanwhile
    }
    return directory;
  })();
  return madeDirectory;
}

/**
 * Copy the migrated directory into `directory` when that does not exist yet or is empty (a new data
 * directory), private as openDatabase makes a new one (docs/guides/getting-started.md "The data directory").
 */
export async function seedPgliteDirectory(directory: string): Promise<void> {
  if (fs.existsSync(directory) && fs.readdirSync(directory).length > 0) return;
  const template = await migratedPgliteDirectory();
  fs.cpSync(template, directory, { recursive: true });
  const tighten = (entry: string) => {
    const stat = fs.statSync(entry);
    fs.chmodSync(entry, stat.isDirectory() ? 0o700 : 0o600);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) tighten(path.join(entry, name));
  };
  tighten(directory);
}
