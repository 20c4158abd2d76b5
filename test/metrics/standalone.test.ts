/**
 * The metrics endpoint alone (docs/operations/metrics.md: `createMetricsRouter`), on an internal app of its own:
 * it counts from the database what any writer did (here the API, through another store object on the
 * same database, as another process would), and receives the reports of the API and revocation
 * routers that are given it as their `metrics` option. Neither of those serves `/metrics` itself.
 */
import { randomBytes } from 'crypto';
import express from 'express';
import request from 'supertest';
import { defaultKeyBackend } from '../../adapters/keys';
import { knexStore } from '../../adapters/store/knex';
import { createMetricsRouter, createRevocationRouter, initCa, type CaRecord, type MetricsRouter, type RevocationRouter } from '../../lib';
import { ALL_PERMISSIONS } from '../../lib/ports';
import { API, opensslCsr, waitForOrder } from '../api/fixture';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { authHeader, buildApp, hashPassword, type TestApp } from '../helpers/http';
import { scrape } from './scrape';

describe.each(testDatabaseTargets())('createMetricsRouter alone ($name)', (target) => {
  let db: TestDatabase;
  let ca: CaRecord;
  let metrics: MetricsRouter;
  let internal: express.Express;
  let api: TestApp;
  let revocation: RevocationRouter;
  let pki: express.Express;
  const alice = authHeader('alice', 'a password of alice');

  beforeAll(async () => {
    db = await openTestDatabase(target);
    const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) };
    const base = { store: db.store, keyBackends, keyType: 'EC' as const, defaultHostname: 'ca.example.com' };
    const root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Root' }], pathLength: 1 });
    ca = await initCa({ ...base, name: 'web', subject: [{ oid: 'CN', value: 'Web' }], parent: root, apiEnabled: true, expiresDays: 90 });
    await db.store.createUser('alice', hashPassword('a password of alice'), [...ALL_PERMISSIONS]);

    // Its own store object on the database: it learns nothing from the API's store in this process.
    metrics = createMetricsRouter({ store: knexStore(db.knex), eventPollMs: 0 });
    internal = express().use(metrics);
    api = buildApp({ enableRestApi: true, store: db.store, keyBackends, orderRunner: undefined, serveRevocation: false, metrics });
    revocation = createRevocationRouter({ store: db.store, keyBackends, metrics });
    pki = express().use(revocation);
  });
  afterAll(async () => {
    await api?.close();
    await revocation?.close();
    await metrics?.close();
    await db?.close();
  });

  test('counts what the database records and what the routers given it report; they serve no /metrics themselves', async () => {
    const before = await scrape(internal);
    const cn = 'alone.example.com';
    const placed = await request(api.app)
      .post(`${API}/ca/${ca.serial}/sign/`)
      .set(alice)
      .send({ csr: opensslCsr('EC', cn).csr, subject: [{ oid: 'CN', value: cn }] });
    expect(placed.status).toBe(200);
    expect((await waitForOrder(api.app, ca.serial, placed.body.slug, alice)).status).toBe('issued');
    const ocsp = await request(pki).post(`/django_ca/ocsp/${ca.serial}/cert/`).set('Content-Type', 'application/ocsp-request').send('x');
    expect(ocsp.status).toBe(200);
    expect((await request(pki).get(`/django_ca/crl/${ca.serial}/`)).status).toBe(200);

    const after = await scrape(internal);
    const issued = { ca: 'web', profile: 'webserver', key_type: 'EC', protocol: 'rest' };
    expect(after.value('ca_api_certificates_issued_total', issued) - before.value('ca_api_certificates_issued_total', issued)).toBe(1);
    const latency = 'ca_api_issuance_duration_seconds';
    expect(after.count(latency, { path: 'in_request' }) - before.count(latency, { path: 'in_request' })).toBe(1);
    const malformed = { answer: 'malformed_request' };
    expect(after.value('ca_api_ocsp_responses_total', malformed) - before.value('ca_api_ocsp_responses_total', malformed)).toBe(1);
    expect(after.value('ca_api_crl_entries', { ca: 'web', scope: 'user' })).toBe(0);

    expect((await request(api.app).get('/metrics')).status).toBe(299);
    expect((await request(pki).get('/metrics')).status).toBe(404);
  });
});
