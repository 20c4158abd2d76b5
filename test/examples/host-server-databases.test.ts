/**
 * The example server's demo password and root.pem belong to the database it runs on, whatever
 * CA_DATA_DIR they are kept in: a new DATABASE_URL with the same data directory gets its own demo
 * user and CAs, and the printed password logs in to it; switching back finds the first database's
 * again; root.pem is the root of the database in use. A database whose demo user the data directory
 * cannot log in as gets no password printed. (A second PGlite directory stands in for a new database.)
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { demoFolder } from '../../examples/host-server/demo-data';
import { startChild, startChildServer, stopChild, type ChildServer } from './child-server';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-databases-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/** The API-enabled CAs' serials the printed credentials see, or the status when they do not log in. */
async function casSeenBy(server: ChildServer): Promise<string[] | number> {
  const res = await fetch(`${server.apiRoot}/ca/`, { headers: { Authorization: basic(server.username, server.password) } });
  if (res.status !== 200) return res.status;
  return ((await res.json()) as { certificate: { serial: string } }[]).map((c) => c.certificate.serial);
}

/** The intermediate's certificate, as the API serves it. */
async function intermediatePem(server: ChildServer): Promise<string> {
  const res = await fetch(`${server.apiRoot}/ca/${server.caSerial}/`, {
    headers: { Authorization: basic(server.username, server.password) },
  });
  return ((await res.json()) as { certificate: { pem: string } }).certificate.pem;
}

/** The root.pem the walk-through names. */
const rootPemPath = (out: string) => /openssl verify -CAfile '([^']+)'/.exec(out)![1];

/** `openssl verify` of `pem` against the root in `rootFile`: true when it chains. */
function chainsTo(rootFile: string, pem: string): boolean {
  const leaf = path.join(dir, 'check.pem');
  fs.writeFileSync(leaf, pem);
  try {
    return execFileSync('openssl', ['verify', '-CAfile', rootFile, leaf], { encoding: 'utf8', stdio: 'pipe' }).includes(': OK');
  } catch {
    return false;
  }
}

test('one data directory, two databases: each start prints the credentials and root.pem of the database in use', async () => {
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  const dbB = path.join(dir, 'database-b');

  // Database A: the PGlite database in the data directory itself (the default).
  const a = await startChildServer({ CA_DATA_DIR: data });
  let interA: string;
  let rootA: string;
  try {
    expect(await casSeenBy(a)).toEqual([a.caSerial]);
    rootA = rootPemPath(a.output());
    expect(rootA).toBe(path.join(data, 'root.pem'));
    interA = await intermediatePem(a);
    expect(chainsTo(rootA, interA)).toBe(true);
  } finally {
    await stopChild(a.child);
  }
  const rootAText = fs.readFileSync(rootA, 'utf8');

  // Database B, new, with the same data directory: its own CAs and user; A's files untouched.
  const b = await startChildServer({ CA_DATA_DIR: data, DATABASE_URL: dbB });
  let interB: string;
  let rootB: string;
  try {
    const out = b.output();
    expect(out).toContain('Created in this database: Example Root, Example Intermediate, API user demo.');
    const folder = /Kept for this database \(demo password, root\.pem\): (\S+)/.exec(out)![1];
    expect(path.dirname(folder)).toBe(path.join(data, 'databases'));
    expect(path.basename(folder)).toMatch(/^pglite-database-b-[0-9a-f]{8}$/);
    expect(b.password).not.toBe(a.password);
    expect(b.caSerial).not.toBe(a.caSerial);
    expect(await casSeenBy(b)).toEqual([b.caSerial]);
    rootB = rootPemPath(out);
    expect(rootB).toBe(path.join(folder, 'root.pem'));
    interB = await intermediatePem(b);
    expect(chainsTo(rootB, interB)).toBe(true);
    expect(chainsTo(rootB, interA)).toBe(false);
    expect(fs.readFileSync(rootA, 'utf8')).toBe(rootAText);
    expect(chainsTo(rootA, interB)).toBe(false);
  } finally {
    await stopChild(b.child);
  }

  // Back to A: A's password and root again, nothing made.
  const again = await startChildServer({ CA_DATA_DIR: data });
  try {
    expect(again.output()).not.toContain('Created');
    expect([again.username, again.password, again.caSerial]).toEqual([a.username, a.password, a.caSerial]);
    expect(await casSeenBy(again)).toEqual([a.caSerial]);
    expect(rootPemPath(again.output())).toBe(rootA);
  } finally {
    await stopChild(again.child);
  }

  // B with a data directory that never saw it: B's demo user exists, its password is unknown here —
  // none is printed (and root.pem is still B's).
  const other = path.join(dir, 'other-data');
  fs.mkdirSync(other);
  const stranger = await startChild({ CA_DATA_DIR: other, DATABASE_URL: dbB }, (out) => out.includes('make a user of your own'));
  try {
    const out = stranger.output();
    expect(out).toMatch(/API user: demo exists in this database, but its password is not kept in \S+: it was made with another/);
    expect(out).not.toContain('password:');
    expect(out).not.toContain(b.password);
    expect(out).not.toContain('--- walk-through ---');
    const folder = /Kept for this database \(demo password, root\.pem\): (\S+)/.exec(out)![1];
    expect(chainsTo(path.join(folder, 'root.pem'), interB)).toBe(true);
  } finally {
    await stopChild(stranger.child);
  }

  // A data directory of the layout before per-database folders (credentials beside the KEK) that holds
  // B's password: taken over once it logs in to B.
  fs.copyFileSync(path.join(path.dirname(rootB), 'demo-credentials.json'), path.join(other, 'demo-credentials.json'));
  const adopted = await startChildServer({ CA_DATA_DIR: other, DATABASE_URL: dbB });
  try {
    expect([adopted.username, adopted.password, adopted.caSerial]).toEqual([b.username, b.password, b.caSerial]);
    expect(adopted.output()).not.toContain('Created');
  } finally {
    await stopChild(adopted.child);
  }
}, 240_000); // five starts of the example server, two of them on a new embedded database (53 s alone; over 60 s on a loaded machine)

describe('demoFolder: where a database keeps its demo password and root.pem', () => {
  const data = path.resolve('/srv/ca-data');

  test('the data directory for its own PGlite database, a folder per other database', () => {
    expect(demoFolder(data, data)).toBe(data);
    expect(demoFolder(data, `file://${data}`)).toBe(data);
    const other = demoFolder(data, '/srv/other-db');
    expect(other).toMatch(new RegExp(`^${data}/databases/pglite-other-db-[0-9a-f]{8}$`));
    expect(demoFolder(data, '/srv/other-db')).toBe(other);
    expect(demoFolder(data, '/var/other-db')).not.toBe(other);
  });

  test('PostgreSQL: named by host and database, one per URL (schema included), never by the password', () => {
    const url = (password: string, schema: string) =>
      `postgres://ca:${password}@db.example:5432/pki?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const folder = demoFolder(data, url('s3cret-pw', 'one'));
    expect(folder).toMatch(new RegExp(`^${data}/databases/postgres-db\\.example-pki-[0-9a-f]{8}$`));
    expect(folder).not.toContain('s3cret-pw');
    expect(demoFolder(data, url('rotated-pw', 'one'))).toBe(folder);
    expect(demoFolder(data, url('s3cret-pw', 'two'))).not.toBe(folder);
    expect(demoFolder(data, 'postgresql:///pki?host=/var/run/postgresql')).toMatch(/\/databases\/postgres-local-pki-[0-9a-f]{8}$/);
  });
});
