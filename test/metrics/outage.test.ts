/**
 * A database that cannot be reached (docs/operations/hostile-clients-and-outages.md "Outages") in the metrics: the endpoint still answers,
 * with `ca_api_database_up` 0, and every request the API answers 503 is counted. The store is the
 * knex store on a PostgreSQL address where nothing listens (test/helpers/dead-database.ts).
 */
import request from 'supertest';
import { routerOnDeadDatabase, type DeadDatabaseApp } from '../helpers/dead-database';
import { authHeader } from '../helpers/http';
import { scrape } from './scrape';

let dead: DeadDatabaseApp;
beforeAll(() => {
  dead = routerOnDeadDatabase({ metrics: { enabled: true, eventPollMs: 0 } });
});
afterAll(() => dead?.close());

test('the endpoint answers through the outage: the database is down, and each 503 is counted', async () => {
  const before = await scrape(dead.app);
  expect(before.value('ca_api_database_up')).toBe(0);
  for (let i = 0; i < 3; i++) expect((await request(dead.app).get('/django_ca/api/ca/').set(authHeader('alice', 'pw'))).status).toBe(503);
  expect((await request(dead.app).get('/django_ca/crl/ABCDEF/')).status).toBe(503);
  const after = await scrape(dead.app);
  expect(after.value('ca_api_database_unavailable_total') - before.value('ca_api_database_unavailable_total')).toBe(4);
  expect(after.value('ca_api_database_up')).toBe(0);
  expect(after.samples('ca_api_orders_pending')).toEqual([]);
  // Logged by the outage log, once; the metrics' own failed reads are not logged as errors.
  expect(dead.logged.filter((m) => m.includes('metrics'))).toEqual([]);
});
