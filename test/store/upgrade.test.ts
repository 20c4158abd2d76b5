/**
 * Upgrading a database made by an earlier release (issue 33): the fixture (test/store/fixtures/,
 * made by make-upgrade-fixture.ts through the library's own ways in) is loaded into a schema at its
 * migration, then `ca-admin migrate` brings it to the newest. Nothing may be lost or changed: every
 * row is kept, CA and certificate rows as they were, the audit chain (docs/DESIGN.md "Audit log")
 * verifies across the upgrade, the REST API answers for the old rows, orders in flight — REST orders
 * pending, an ACME order ready to finalize, an ACME challenge mid-validation — finish, each
 * certificate announced once; and every newer migration's `down` goes back to the fixture's schema
 * with the data in it, and up again.
 *
 * It asserts behaviour kept, never what a particular newer migration does. The cases run in order,
 * as an operator's upgrade would: load, migrate, serve (the router of the REST case runs the orders).
 */
import { X509Certificate } from 'crypto';
import * as fs from 'fs';
import express from 'express';
import * as acme from 'acme-client';
import request from 'supertest';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';
import { TABLES } from '../../adapters/store/knex/tables';
import { createCaApiRouter, defaultKeyBackend, type CaApiRouter } from '../../lib';
import { verifyAuditChain } from '../../lib/audit/audit-chain';
import { jwkThumbprint, type PublicJwk } from '../../lib/acme/jwk';
import type { AuditLogProvider, Store } from '../../lib/ports';
import { startAcmeServer } from '../acme/fixture';
import { cliRunner } from '../cli/helpers';
import { WireClient } from '../helpers/acme-wire';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { authHeader } from '../helpers/http';
import { loadData, migrateThrough, storeTables } from './fixtures/sql-fixture';
import {
  FIXTURE_FACTS,
  FIXTURE_KEK,
  FIXTURE_MIGRATION,
  FIXTURE_PASSWORD,
  FIXTURE_SQL,
  fixtureAccountKey,
  type FixtureFacts,
} from './fixtures/upgrade-fixture';

jest.setTimeout(60_000);

const facts = JSON.parse(fs.readFileSync(FIXTURE_FACTS, 'utf8')) as FixtureFacts;
const API = '/django_ca/api';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: FIXTURE_KEK }) };

interface EventRow {
  id: number;
  type: string;
  serial: string | null;
  actor: Record<string, unknown>;
}

describe.each(testDatabaseTargets())(`upgrading a database made at ${FIXTURE_MIGRATION}, on $name`, (target) => {
  let db: TestDatabase;
  let store: Store & AuditLogProvider;
  /** The columns of each table at the fixture's schema. */
  const fixtureColumns: Record<string, string[]> = {};
  /** Every row of each table as loaded, as the text of those columns. */
  const before: Record<string, string[]> = {};
  let router: CaApiRouter;
  let app: express.Express;
  const alice = authHeader(facts.users.all, FIXTURE_PASSWORD);

  const rows = async <T>(sql: string, bindings: readonly (string | number)[] = []): Promise<T[]> =>
    ((await db.knex.raw(sql, bindings)) as { rows: T[] }).rows;
  const count = async (table: string) => Number(((await db.knex(table).count('* as n').first()) as { n: string | number }).n);
  /** A table's rows as the text of `columns`, in a fixed order. */
  const asText = async (table: string, columns: string[]) =>
    (
      await rows<{ v: string }>(
        `SELECT json_build_array(${columns.map((c) => `"${c}"::text`).join(', ')})::text AS v FROM "${table}" ORDER BY v`,
      )
    ).map((x) => x.v);
  const columnsOf = async (table: string) =>
    (
      await rows<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
        [table],
      )
    ).map((c) => c.column_name);
  /** `certificate.issued` events of a serial as hex of any case, with or without leading zeros (X509Certificate gives them). */
  const issuedEvents = (serial: string) =>
    rows<EventRow>(
      `SELECT * FROM ${TABLES.events} WHERE type = 'certificate.issued' AND ltrim(upper(serial), '0') = ltrim(upper(?), '0')`,
      [serial],
    );
  const pendingMigrations = async () => {
    const names = (await migrationSource.getMigrations([])) as string[];
    return names.slice(names.indexOf(FIXTURE_MIGRATION) + 1);
  };
  const appliedMigrations = async () => (await db.knex(MIGRATIONS_TABLE).orderBy('id').pluck('name')) as string[];

  beforeAll(async () => {
    db = await openTestDatabase(target, { migrate: false });
    await migrateThrough(db.knex, FIXTURE_MIGRATION);
    await loadData(db.knex, fs.readFileSync(FIXTURE_SQL, 'utf8'));
    // The fixture's ACME orders in flight are as old as the fixture, and ACME orders live a day at most
    // (docs/guides/acme.md, orderValidityMs): renew them as if their client had just made them.
    await db.knex.raw(
      `UPDATE ${TABLES.acmeAuthorizations} SET expires = now() + interval '1 hour'
        WHERE order_id IN (SELECT id FROM ${TABLES.acmeOrders} WHERE status IN ('pending', 'ready', 'processing'))`,
    );
    await db.knex.raw(
      `UPDATE ${TABLES.acmeOrders} SET expires = now() + interval '1 hour' WHERE status IN ('pending', 'ready', 'processing')`,
    );
    for (const table of Object.keys(facts.counts)) {
      fixtureColumns[table] = await columnsOf(table);
      before[table] = await asText(table, fixtureColumns[table]);
    }
    store = db.store;
  });
  afterAll(async () => {
    await router?.close();
    await db?.close();
  });

  it('loads the fixture as made: every row, the audit chain intact', async () => {
    expect(await appliedMigrations()).toContain(FIXTURE_MIGRATION);
    for (const [table, n] of Object.entries(facts.counts)) expect({ table, rows: await count(table) }).toEqual({ table, rows: n });
    expect(await verifyAuditChain(store.auditLog)).toMatchObject({ intact: true, records: facts.counts[TABLES.events] });
  });

  it('`ca-admin migrate` applies every newer migration and keeps every row of every table as it was', async () => {
    const newer = await pendingMigrations();
    const migrated = await cliRunner(store)(['migrate']);
    expect(migrated).toMatchObject({ code: 0, stdout: `Migrations applied (${newer.length} new).\n` });
    expect((await appliedMigrations()).slice(-newer.length - 1)).toEqual([FIXTURE_MIGRATION, ...newer]);
    expect(await storeTables(db.knex)).toEqual(expect.arrayContaining(Object.keys(facts.counts)));
    for (const [table, n] of Object.entries(facts.counts)) expect({ table, rows: await count(table) }).toEqual({ table, rows: n });
    // No column dropped, and every value as it was (a newer migration may add columns: they are not compared).
    for (const table of Object.keys(before)) {
      expect({ table, columns: await columnsOf(table) }).toEqual({ table, columns: expect.arrayContaining(fixtureColumns[table]) });
      expect({ table, rows: await asText(table, fixtureColumns[table]) }).toEqual({ table, rows: before[table] });
    }
  });

  it('the CAs made before the upgrade read with the built-in issuance policy (none of their own)', async () => {
    const cas = await store.listCas();
    expect(cas.length).toBeGreaterThan(0);
    expect(cas.map((ca) => [ca.name, ca.issuancePolicy])).toEqual(cas.map((ca) => [ca.name, null]));
  });

  it('verify_audit_log verifies the whole chain after the upgrade', async () => {
    const verdict = await verifyAuditChain(store.auditLog);
    expect(verdict).toMatchObject({ intact: true });
    const cli = await cliRunner(store)(['verify_audit_log']);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^Audit log intact: \d+ record\(s\), chain head [0-9a-f]{64}\.\n$/);
  });

  it('the REST API answers for the rows made before the upgrade', async () => {
    router = createCaApiRouter({ store, keyBackends, enableRestApi: true, logError: (m, e) => console.error(m, e) });
    app = express();
    app.use(router);
    const { child } = facts.cas;
    const ca = await request(app).get(`${API}/ca/${child}/`).set(alice);
    expect(ca.status).toBe(200);
    expect(ca.body).toMatchObject({ name: 'child', certificate: { serial: child } });
    const revoked = await request(app).get(`${API}/ca/${child}/certs/${facts.rest.revoked}/`).set(alice);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ revoked: true, certificate: { serial: facts.rest.revoked } });
    const list = await request(app).get(`${API}/ca/${child}/certs/`).set(alice);
    expect(list.status).toBe(200);
    const serials = (list.body as { certificate: { serial: string } }[]).map((c) => c.certificate.serial);
    expect(serials).toContain(facts.rest.issued[0].serial);
    expect(serials).not.toContain(facts.rest.revoked); // revoked certificates are listed only when asked for
    // The per-CA grant of the limited user is kept: certificates of the intermediate, nothing else.
    const viewer = authHeader(facts.users.limited, FIXTURE_PASSWORD);
    expect((await request(app).get(`${API}/ca/${child}/certs/${facts.rest.issued[0].serial}/`).set(viewer)).status).toBe(200);
    expect((await request(app).get(`${API}/ca/${child}/`).set(viewer)).status).toBe(403);
    const failed = await request(app).get(`${API}/ca/${child}/orders/${facts.rest.failed}/`).set(alice);
    expect(failed.body).toMatchObject({ status: 'failed', serial: null });
    const imported = await cliRunner(store)(['view_cert', facts.importedCertificate]);
    expect(imported.code).toBe(0);
  });

  it('REST orders in flight finish after the upgrade, each certificate announced once', async () => {
    for (const slug of facts.rest.pending) {
      let order: { status: string; serial: string | null } = { status: 'pending', serial: null };
      for (let i = 0; i < 400 && order.status === 'pending'; i++) {
        await sleep(25);
        order = (await request(app).get(`${API}/ca/${facts.cas.child}/orders/${slug}/`).set(alice)).body;
      }
      expect(order.status).toBe('issued');
      const cert = await request(app).get(`${API}/ca/${facts.cas.child}/certs/${order.serial}/`).set(alice);
      expect(cert.status).toBe(200);
      const events = await issuedEvents(order.serial!);
      expect(events).toHaveLength(1);
      // Issued for the user who placed the order, as for the orders issued before the upgrade.
      expect(events[0].actor).toMatchObject({ type: 'api_user', name: facts.users.all, protocol: 'rest' });
    }
  });

  it('ACME orders in flight finish: a challenge mid-validation is retried, a ready order is finalized', async () => {
    const [root, ca] = [await store.findCaBySerial(facts.cas.root), await store.findCaBySerial(facts.cas.acme)];
    const server = await startAcmeServer(target, {}, { db, store, root: root!, ca: ca!, keyBackends });
    try {
      const key = fixtureAccountKey();
      const c = await new WireClient(`${server.base}${facts.acme.directory}`, key).init();
      c.kid = `${server.base}${facts.acme.kid}`;
      const { processing, ready } = facts.acme;
      server.dns.setA(processing.name, ['127.0.0.1']);
      server.http01.set(processing.token, `${processing.token}.${jwkThumbprint(key.jwk as unknown as PublicJwk)}`);
      const statusOf = async (url: string) => ((await c.post(`${server.base}${url}`, undefined)).body as { status: string }).status;
      const until = async (url: string, wanted: string) => {
        let status = await statusOf(url);
        for (let i = 0; i < 100 && status !== wanted && status !== 'invalid'; i++) {
          await sleep(200);
          status = await statusOf(url);
        }
        return status;
      };
      expect(await until(processing.challenge, 'valid')).toBe('valid');
      expect(await until(processing.order, 'ready')).toBe('ready');

      const [, csr] = await acme.crypto.createCsr({ commonName: ready.name });
      const finalized = await c.post(`${server.base}${ready.finalize}`, { csr: acme.crypto.getPemBodyAsB64u(csr) });
      expect(finalized.status).toBe(200);
      expect(await until(ready.order, 'valid')).toBe('valid');
      const done = (await c.post(`${server.base}${ready.order}`, undefined)).body as { certificate: string };
      const chain = (await c.post(done.certificate, undefined)).text;
      const serial = new X509Certificate(chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 25)).serialNumber;
      const events = await issuedEvents(serial);
      expect(events).toHaveLength(1);
      expect(events[0].actor).toMatchObject({ type: 'acme_account', protocol: 'acme' });
    } finally {
      await server.close();
    }
  });

  it('the audit chain still verifies with the events written after the upgrade', async () => {
    const records = Number(facts.counts[TABLES.events]);
    const verdict = await verifyAuditChain(store.auditLog);
    expect(verdict).toMatchObject({ intact: true });
    expect(verdict.intact && verdict.records).toBeGreaterThan(records + facts.rest.pending.length);
    expect((await cliRunner(store)(['verify_audit_log'])).code).toBe(0);
  });

  it("every newer migration's down goes back to the fixture's schema with the data in it, and up again", async () => {
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    const newer = await pendingMigrations();
    const events = await count(TABLES.events);
    for (let i = 0; i < newer.length; i++) await db.knex.migrate.down(config);
    expect((await appliedMigrations()).at(-1)).toBe(FIXTURE_MIGRATION);
    expect(await verifyAuditChain(store.auditLog)).toMatchObject({ intact: true });
    // The rows nothing since the upgrade had reason to change are still there as they were.
    for (const table of [TABLES.cas, TABLES.certificates, TABLES.events, TABLES.users, TABLES.permissions]) {
      expect({ table, rows: await asText(table, fixtureColumns[table]) }).toEqual({ table, rows: expect.arrayContaining(before[table]) });
    }
    expect(await count(TABLES.events)).toBeGreaterThanOrEqual(events);
    await db.knex.migrate.latest(config);
    expect((await appliedMigrations()).slice(-newer.length - 1)).toEqual([FIXTURE_MIGRATION, ...newer]);
    expect(await verifyAuditChain(store.auditLog)).toMatchObject({ intact: true });
    expect((await request(app).get(`${API}/ca/${facts.cas.child}/certs/${facts.rest.revoked}/`).set(alice)).body).toMatchObject({
      revoked: true,
    });
  });
});
