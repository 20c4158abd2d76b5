/**
 * A complete API on a real store for endpoint tests: PGlite (or PostgreSQL), the default key backend,
 * the in-process order runner, a root CA, an API-enabled intermediate and one user per permission
 * set. One fixture per test file (PGlite takes a while to start).
 */
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { defaultKeyBackend } from '../../adapters/keys';
import { inProcessOrderRunner, type InProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { initCa, type InitCaOptions } from '../../lib/ca/authorities';
import type { CaRecord, KeyBackend, Permission, Store } from '../../lib/ports';
import { ALL_PERMISSIONS } from '../../lib/ports';
import type { CaApiRouterOptions } from '../../lib';
import { openTestDatabase, type DatabaseTarget, type TestDatabase } from '../helpers/database';
import { authHeader, buildApp, hashPassword, type TestApp } from '../helpers/http';

export const API = '/django_ca/api';
export const PASSWORD = 'correct horse';
export const HOSTNAME = 'ca.example.com';

export interface ApiFixture {
  db: TestDatabase;
  store: Store;
  keyBackend: KeyBackend;
  runner: InProcessOrderRunner;
  app: TestApp['app'];
  testApp: TestApp;
  root: CaRecord;
  /** API-enabled intermediate of `root`, EC P-256. */
  ca: CaRecord;
  /** Credentials header of a user (`alice` and `bob` have every permission; `no_<perm>` lacks one). */
  auth(username: string): { Authorization: string };
  /** Another CA, by `initCa` options, signed by `root` unless `parent: null`. */
  makeCa(options: Partial<InitCaOptions> & { name: string }): Promise<CaRecord>;
  close(): Promise<void>;
}

export async function setupApi(
  target: DatabaseTarget = { name: 'pglite', url: 'memory://' },
  options: Partial<CaApiRouterOptions> = {},
): Promise<ApiFixture> {
  const db = await openTestDatabase(target);
  const store = db.store;
  const keyBackend = defaultKeyBackend({ keyEncryptionKey: randomBytes(32) });
  const keyBackends = { default: keyBackend };
  const runner = inProcessOrderRunner({ store, keyBackends, pollIntervalMs: 50, logError: () => undefined });
  const testApp = buildApp({ enableRestApi: true, store, keyBackends, orderRunner: runner, ...options });

  const base = { store, keyBackends, keyType: 'EC' as const, defaultHostname: HOSTNAME };
  const root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Test Root' }], pathLength: 1 });
  const ca = await initCa({
    ...base,
    name: 'child',
    subject: [{ oid: 'CN', value: 'Test Intermediate' }],
    parent: root,
    apiEnabled: true,
    expiresDays: 365,
  });

  const users: Record<string, Permission[]> = {
    alice: [...ALL_PERMISSIONS],
    bob: [...ALL_PERMISSIONS],
  };
  for (const p of ALL_PERMISSIONS) users[`no_${p}`] = ALL_PERMISSIONS.filter((q) => q !== p);
  for (const [name, perms] of Object.entries(users)) await store.createUser(name, hashPassword(PASSWORD), perms);

  return {
    db,
    store,
    keyBackend,
    runner,
    app: testApp.app,
    testApp,
    root,
    ca,
    auth: (username) => authHeader(username, PASSWORD),
    makeCa: (o) => initCa({ ...base, subject: [{ oid: 'CN', value: o.name }], parent: root, expiresDays: 365, ...o }),
    close: async () => {
      await testApp.close();
      await db.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// CSRs made by openssl (an independent implementation)

let tmp: string | null = null;
function tmpDir(): string {
  tmp ??= fs.mkdtempSync(path.join(os.tmpdir(), 'api-test-'));
  return tmp;
}

export type CsrKeyType = 'EC' | 'RSA' | 'Ed25519';

const NEWKEY: Record<CsrKeyType, string[]> = {
  EC: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  RSA: ['-newkey', 'rsa:2048'],
  Ed25519: ['-newkey', 'ed25519'],
};

/** `openssl req -new` with a fresh key; returns the CSR PEM and the key file's path. */
export function opensslCsr(keyType: CsrKeyType = 'EC', cn = 'csr.example.com'): { csr: string; keyFile: string } {
  const dir = fs.mkdtempSync(path.join(tmpDir(), 'csr-'));
  const keyFile = path.join(dir, 'key.pem');
  const csrFile = path.join(dir, 'req.pem');
  execFileSync('openssl', ['req', '-new', ...NEWKEY[keyType], '-nodes', '-keyout', keyFile, '-out', csrFile, '-subj', `/CN=${cn}`], {
    stdio: 'pipe',
  });
  return { csr: fs.readFileSync(csrFile, 'utf8'), keyFile };
}

/** Poll an order until it leaves `pending` (the runner is woken by the sign request itself). */
export async function waitForOrder(
  app: TestApp['app'],
  caSerial: string,
  slug: string,
  auth: { Authorization: string },
  attempts = 200,
): Promise<{ status: string; serial: string | null; error: string | null }> {
  for (let i = 0; i < attempts; i++) {
    const res = await request(app).get(`${API}/ca/${caSerial}/orders/${slug}/`).set(auth);
    if (res.status !== 200) throw new Error(`order poll: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.status !== 'pending') return res.body;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`order ${slug} still pending`);
}

/** Sign `csr` on the fixture's CA as alice, wait for the order, expect it issued; the new serial. */
export async function issueThroughApi(f: ApiFixture, csr: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await request(f.app)
    .post(`${API}/ca/${f.ca.serial}/sign/`)
    .set(f.auth('alice'))
    .send({ csr, subject: [{ oid: 'CN', value: 'cert.example.com' }], ...body });
  expect(res.status).toBe(200);
  const done = await waitForOrder(f.app, f.ca.serial, res.body.slug, f.auth('alice'));
  expect(done.status).toBe('issued');
  return done.serial as string;
}
