/**
 * A database that cannot be reached (README "Outages") in the metrics: the endpoint still answers,
 * with `ca_api_database_up` 0, and every request the API answers 503 is counted. The store is the
 * knex store on a PostgreSQL address where nothing listens, as in test/hardening/outage.test.ts.
 */
import { randomBytes } from 'crypto';
import express from 'express';
import knex, { type Knex } from 'knex';
import request from 'supertest';
import { defaultKeyBackend } from '../../adapters/keys';
import { knexConfig, parseDatabaseUrl } from '../../adapters/store/database';
import { createCaApiRouter, knexStore, type CaApiRouter } from '../../lib';
import { authHeader, idleOrderRunner } from '../helpers/http';
import { scrape } from './scrape';

/** Nothing listens on port 1: connecting is refused at once, as while a server restarts. */
const DEAD = 'postgres://nobody:secret@127.0.0.1:1/nothing';

let db: Knex;
let router: CaApiRouter;
let app: express.Express;
const logged: string[] = [];

beforeAll(() => {
  db = knex(knexConfig(parseDatabaseUrl(DEAD)));
  router = createCaApiRouter({
    enableRestApi: true,
    store: knexStore(db),
    keyBackends: { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) },
    orderRunner: idleOrderRunner(),
    metrics: { enabled: true, eventPollMs: 0 },
    logError: (message) => logged.push(message),
  });
  app = express().use(router);
});
afterAll(async () => {
  await router.close();
  await db.destroy();
});

test('the endpoint answers through the outage: the database is down, and each 503 is counted', async () => {
  const before = await scrape(app);
  expect(before.value('ca_api_database_up')).toBe(0);
  for (let i = 0; i < 3; i++) expect((await request(app).get('/django_ca/api/ca/').set(authHeader('alice', 'pw'))).status).toBe(503);
  expect((await request(app).get('/django_ca/crl/ABCDEF/')).status).toBe(503);
  const after = await scrape(app);
  expect(after.value('ca_api_database_unavailable_total') - before.value('ca_api_database_unavailable_total')).toBe(4);
  expect(after.value('ca_api_database_up')).toBe(0);
  expect(after.samples('ca_api_orders_pending')).toEqual([]);
  // Logged by the outage log, once; the metrics' own failed reads are not logged as errors.
  expect(logged.filter((m) => m.includes('metrics'))).toEqual([]);
});
