/**
 * A sign request's `key_backend_options` reach the key backend as given but are never written as
 * given: an order row keeps only what the CA's backend lets it store (`KeyBackend.storableUseOptions`),
 * and nothing for a backend without that method (the built-in one). In the request and on the queued
 * path alike.
 */
import { randomBytes } from 'crypto';
import request from 'supertest';
import { defaultKeyBackend } from '../../adapters/keys';
import { TABLES } from '../../adapters/store/knex/tables';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { initCa } from '../../lib/ca/authorities';
import { ALL_PERMISSIONS, type CaRecord, type KeyBackend } from '../../lib/ports';
import { openTestDatabase, type TestDatabase } from '../helpers/database';
import { authHeader, buildApp, hashPassword, type TestApp } from '../helpers/http';
import { API, opensslCsr, waitForOrder } from './fixture';

const PIN = 'pin-4711-never-stored';

describe.each([
  { signInRequest: true, path: 'signed in the request' },
  { signInRequest: false, path: 'queued for the runner' },
])('key_backend_options, $path', ({ signInRequest }) => {
  let db: TestDatabase;
  let app: TestApp;
  let ca: CaRecord;
  const seen: Record<string, unknown>[] = [];
  let storable = true;

  beforeAll(async () => {
    db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
    const inner = defaultKeyBackend({ keyEncryptionKey: randomBytes(32) });
    const backend: KeyBackend = {
      alias: 'default',
      createKey: (spec) => inner.createKey(spec),
      importKey: (key, password) => inner.importKey(key, password),
      getSigner: (options, useOptions) => {
        seen.push(useOptions ?? {});
        return inner.getSigner(options, useOptions);
      },
    };
    // Keeps everything but the PIN; switched off per test to stand for a backend without the method.
    Object.defineProperty(backend, 'storableUseOptions', {
      get: () => (storable ? ({ pin: _pin, ...rest }: Record<string, unknown>) => rest : undefined),
    });
    const keyBackends = { default: backend };
    ca = await initCa({ store: db.store, keyBackends, keyType: 'EC', name: 'ca', subject: [{ oid: 'CN', value: 'CA' }], apiEnabled: true });
    await db.store.createUser('alice', hashPassword('pw'), [...ALL_PERMISSIONS]);
    const orderRunner = inProcessOrderRunner({ store: db.store, keyBackends, pollIntervalMs: 50, logError: () => undefined });
    app = buildApp({ enableRestApi: true, store: db.store, keyBackends, orderRunner, signInRequest });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  async function sign(options: Record<string, unknown>): Promise<{ slug: string; stored: unknown }> {
    seen.length = 0;
    const res = await request(app.app)
      .post(`${API}/ca/${ca.serial}/sign/`)
      .set(authHeader('alice', 'pw'))
      .send({ csr: opensslCsr().csr, subject: [{ oid: 'CN', value: 'a.example.com' }], key_backend_options: options });
    expect(res.status).toBe(200);
    expect((await waitForOrder(app.app, ca.serial, res.body.slug, authHeader('alice', 'pw'))).status).toBe('issued');
    const row = (await db.knex(TABLES.orders).where({ slug: res.body.slug }).first()) as { request: { keyBackendOptions: unknown } };
    return { slug: res.body.slug, stored: row.request.keyBackendOptions };
  }

  it('the backend signs with the options as given; the row keeps what the backend allows', async () => {
    storable = true;
    const { stored } = await sign({ pin: PIN, slot: 2 });
    expect(seen).toContainEqual({ pin: PIN, slot: 2 });
    expect(stored).toEqual({ slot: 2 });
  });

  it('a backend without storableUseOptions: nothing of them is stored', async () => {
    storable = false;
    const { stored } = await sign({ pin: PIN, slot: 3 });
    expect(seen).toContainEqual({ pin: PIN, slot: 3 });
    expect(stored).toEqual({});
  });

  it('the secret is nowhere in the database', async () => {
    const { rows } = (await db.knex.raw(`SELECT count(*) AS n FROM ${TABLES.orders} o WHERE o.request::text LIKE ?`, [`%${PIN}%`])) as {
      rows: { n: string | number }[];
    };
    expect(Number(rows[0].n)).toBe(0);
  });
});
