/**
 * `ca-admin` beside a running example server that holds the embedded (PGlite) database: the command is
 * refused at once with the one-line "in use" error and a non-zero exit, before it opens the database —
 * the lock (adapters/store/directory-lock.ts) is checked before PGlite or knex is even loaded, so the
 * answer costs neither their loading nor PGlite's start, and the server's files and lock are left alone.
 */
import * as fs from 'fs';
import * as path from 'path';
import { LOCK_FILE_NAME } from '../../adapters/store/directory-lock';
import { startChildServer, stopChild, type ChildServer } from '../examples/child-server';
import { childEnv, runFixture } from './child';
import { tmpDir } from './openssl';

let dir: string;
let data: string;
let server: ChildServer;
beforeAll(async () => {
  dir = tmpDir();
  data = path.join(dir, 'data');
  fs.mkdirSync(data);
  server = await startChildServer({ CA_DATA_DIR: data });
}, 120_000);
afterAll(async () => {
  if (server) await stopChild(server.child);
  fs.rmSync(dir, { recursive: true, force: true });
});

test.each([['list_cas'], ['view_ca', 'AB:CD'], ['migrate']])(
  'ca-admin %s on the directory a running server holds: the in-use error, without loading the database drivers',
  (...args) => {
    const modulesFile = path.join(dir, 'modules.json');
    const r = runFixture('loaded-modules.ts', args, childEnv(data, { LOADED_MODULES_FILE: modulesFile }));
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `Error: The embedded database in ${data} is in use by process ${server.child.pid}. An embedded (PGlite) database ` +
        'serves one process at a time: stop the process that holds it (for example the example host server) and try again, ' +
        'or use PostgreSQL (DATABASE_URL=postgres://...), which any number of processes can share.\n',
    );
    expect(r.code).toBe(1);
    // Refused before the database was opened: neither PGlite nor knex (nor its client) was loaded.
    const loaded = JSON.parse(fs.readFileSync(modulesFile, 'utf8')) as string[];
    expect(loaded.filter((file) => /[\\/]node_modules[\\/](knex|knex-pglite|@electric-sql[\\/]pglite)[\\/]/.test(file))).toEqual([]);
    // The server's lock is its own still.
    expect(fs.readFileSync(path.join(data, LOCK_FILE_NAME), 'utf8')).toBe(String(server.child.pid));
  },
);
