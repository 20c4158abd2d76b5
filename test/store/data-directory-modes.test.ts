/**
 * An embedded database's data directory is private whatever the umask (adapters/store/
 * data-directory-modes.ts): the directory and every directory in it 0700, every file 0600 — opened
 * through the library's openDatabase, by `ca-admin migrate` and by the example server, each in a
 * process of its own with umask 022 (the usual one, under which PGlite's files came out 0666).
 * An existing directory that others may enter is left as it is, and opening it warns with the fix.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openDatabase } from '../../adapters/store/database';
import { stopChild, SERVER, TS_REGISTER } from '../examples/child-server';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(__dirname, 'fixtures/open-data-directory.ts');

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-modes-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** `node -r <ts hook> …args` under umask 022, as a shell line. */
const underUmask022 = (args: string[]) => `umask 022 && exec ${[process.execPath, '-r', TS_REGISTER, ...args].map(shellQuote).join(' ')}`;

/** Every entry under `root` (itself included) that is not a 0700 directory or a 0600 file. */
function notPrivate(root: string): string[] {
  const found: string[] = [];
  let files = 0;
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    const mode = stat.mode & 0o777;
    if (stat.isDirectory()) {
      if (mode !== 0o700) found.push(`${path.relative(root, entry) || '.'}/ ${mode.toString(8)}`);
      for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
    } else {
      files++;
      if (mode !== 0o600) found.push(`${path.relative(root, entry)} ${mode.toString(8)}`);
    }
  };
  visit(root);
  expect(files).toBeGreaterThan(900); // a whole PostgreSQL cluster was looked at
  return found;
}

function runFixture(how: 'library' | 'ca-admin', directory: string): string {
  const r = spawnSync('sh', ['-c', underUmask022([FIXTURE, how, directory])], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json') },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return r.stdout;
}

test('openDatabase under umask 022 makes a new directory 0700 and its files 0600, and keeps them so', () => {
  const data = path.join(dir, 'library', '.ca-data');
  expect(runFixture('library', data)).toBe('');
  expect(notPrivate(data)).toEqual([]);
  // Opened again, written to again (new WAL, the user table's pages): still private, no warning.
  expect(runFixture('library', data)).toBe('');
  expect(notPrivate(data)).toEqual([]);
}, 240_000);

test('ca-admin migrate under umask 022 into a new directory leaves it private', () => {
  const data = path.join(dir, 'ca-admin');
  runFixture('ca-admin', data);
  expect(notPrivate(data)).toEqual([]);
}, 240_000);

/** The example server under umask 022 on `data`, started until its walk-through, then stopped; its output. */
async function runServer(data: string): Promise<string> {
  const child = spawn('sh', ['-c', underUmask022([SERVER])], {
    cwd: data,
    env: { ...process.env, PORT: '0', CA_DATA_DIR: data, TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('--- end ---')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
  await stopChild(child);
  return out;
}

test('the example server under umask 022 leaves its data directory private (database, key, password, root.pem)', async () => {
  const data = path.join(dir, 'server');
  fs.mkdirSync(data, { mode: 0o700 });
  const out = await runServer(data);
  expect(fs.readdirSync(data)).toEqual(
    expect.arrayContaining(['dev-key-encryption-key', 'demo-credentials.json', 'root.pem', 'PG_VERSION']),
  );
  expect(notPrivate(data)).toEqual([]);
  expect(out).not.toContain('open to other users');

  // Opened up by someone: the next start says so, with the fix.
  fs.chmodSync(data, 0o755);
  expect(await runServer(data)).toContain(
    `open to other users (mode 755): whoever can write its files can add an API user or change certificates. Make it private: chmod -R go= ${data}`,
  );
}, 240_000);

test('an empty directory made beforehand (mkdir under umask 022) is made private like a new one', async () => {
  const data = path.join(dir, 'made-by-mkdir');
  fs.mkdirSync(data, { mode: 0o755 });
  fs.chmodSync(data, 0o755);
  const warnings: string[] = [];
  await (await openDatabase(data, { warn: (m) => warnings.push(m) })).destroy();
  expect(warnings).toEqual([]);
  expect(notPrivate(data)).toEqual([]);
});

describe('an existing directory', () => {
  let data: string;
  beforeAll(async () => {
    data = path.join(dir, 'existing');
    await (await openDatabase(data)).destroy();
  });

  test('that others may enter is left as it is, and opening it warns with the command that fixes it', async () => {
    fs.chmodSync(data, 0o755);
    fs.chmodSync(path.join(data, 'PG_VERSION'), 0o644);
    const warnings: string[] = [];
    await (await openDatabase(data, { warn: (m) => warnings.push(m) })).destroy();
    expect(warnings).toEqual([expect.stringContaining(`open to other users (mode 755)`)]);
    expect(warnings[0]).toContain(`Make it private: chmod -R go= ${data}`);
    expect(fs.statSync(data).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(data, 'PG_VERSION')).mode & 0o777).toBe(0o644);

    spawnSync('chmod', ['-R', 'go=', data]); // the command it printed
    warnings.length = 0;
    await (await openDatabase(data, { warn: (m) => warnings.push(m) })).destroy();
    expect(warnings).toEqual([]);
    expect(notPrivate(data)).toEqual([]);
  });

  test('that is private has a loose file inside (as an older version left it) made private', async () => {
    fs.chmodSync(data, 0o700);
    fs.chmodSync(path.join(data, 'postgresql.conf'), 0o666);
    const warnings: string[] = [];
    await (await openDatabase(data, { warn: (m) => warnings.push(m) })).destroy();
    expect(warnings).toEqual([]);
    expect(notPrivate(data)).toEqual([]);
  });
});
