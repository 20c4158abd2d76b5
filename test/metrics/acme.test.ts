/**
 * ACME orders in the metrics (docs/operations/metrics.md: `ca_api_acme_orders_total`): acme-client gets one
 * certificate (an order created, then valid, and its certificate counted as issued through ACME) and
 * fails one validation for good (an order invalid). The challenges are checked by a validator that
 * accepts every name but `refused.example.com`, so that no DNS or http-01 server is needed.
 */
import { randomBytes } from 'crypto';
import express from 'express';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as acme from 'acme-client';
import { defaultKeyBackend } from '../../adapters/keys';
import { createCaApiRouter, initCa, type CaApiRouter, type CaRecord, type ChallengeValidator } from '../../lib';
import { openTestDatabase, type TestDatabase } from '../helpers/database';
import { scrape, type Scrape } from './scrape';

jest.setTimeout(60_000);

const REFUSED = 'refused.example.com';

const validator: ChallengeValidator = {
  validate: async ({ identifier }) =>
    identifier.value === REFUSED
      ? { valid: false, retryable: false, problem: { type: 'incorrectResponse', detail: 'The key authorization is wrong.' } }
      : { valid: true },
};

let db: TestDatabase;
let ca: CaRecord;
let router: CaApiRouter;
let app: express.Express;
let server: http.Server;
let directory: string;

beforeAll(async () => {
  db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) };
  const base = { store: db.store, keyBackends, keyType: 'EC' as const, defaultHostname: 'ca.example.com' };
  const root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Root' }], pathLength: 1 });
  ca = await initCa({ ...base, name: 'acme-ca', subject: [{ oid: 'CN', value: 'ACME' }], parent: root, expiresDays: 90 });
  ca = await db.store.updateCa(ca.id, { acmeEnabled: true, acmeRequiresContact: false });
  router = createCaApiRouter({
    store: db.store,
    keyBackends,
    acme: { enabled: true, validator, validationAttempts: 1 },
    metrics: { enabled: true, eventPollMs: 0 },
  });
  app = express().use(router);
  server = await new Promise<http.Server>((resolve) => {
    const s = http.createServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  directory = `http://127.0.0.1:${(server.address() as AddressInfo).port}/django_ca/acme/directory/${ca.serial}/`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await router?.close();
  await db?.close();
});

async function order(client: acme.Client, name: string): Promise<string> {
  const [, csr] = await acme.crypto.createCsr({ commonName: name });
  return client.auto({
    csr,
    skipChallengeVerification: true,
    challengePriority: ['http-01'],
    challengeCreateFn: async () => {},
    challengeRemoveFn: async () => {},
  });
}

const delta = (before: Scrape, after: Scrape, name: string, labels: Record<string, string>): number =>
  after.value(name, labels) - before.value(name, labels);

test('an order created and made valid, one made invalid by a failed validation; the certificate counted as ACME issuance', async () => {
  const client = new acme.Client({ directoryUrl: directory, accountKey: await acme.crypto.createPrivateEcdsaKey() });
  await client.createAccount({ termsOfServiceAgreed: true });
  const before = await scrape(app);

  expect(await order(client, 'good.example.com')).toContain('BEGIN CERTIFICATE');
  await expect(order(client, REFUSED)).rejects.toThrow();

  const after = await scrape(app);
  const orders = 'ca_api_acme_orders_total';
  expect(delta(before, after, orders, { state: 'created' })).toBe(2);
  expect(delta(before, after, orders, { state: 'valid' })).toBe(1);
  expect(delta(before, after, orders, { state: 'invalid' })).toBe(1);
  const issued = { ca: 'acme-ca', protocol: 'acme', key_type: 'RSA' }; // acme-client's CSR key
  expect(delta(before, after, 'ca_api_certificates_issued_total', issued)).toBe(1);
});
