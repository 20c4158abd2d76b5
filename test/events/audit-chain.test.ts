/**
 * The audit log (migration 0011, lib/audit/audit-chain.ts, docs/operations/audit-and-events.md "Audit"): every
 * record chained by the database, the chain recomputed in JavaScript from the stored texts whatever
 * the writing session's time zone, the table append-only, a record changed behind the triggers'
 * back named by `ca-admin verify_audit_log`, and no record without its change nor change without its
 * record when a write fails.
 */
import { auditHash, GENESIS_HASH, verifyAuditChain } from '../../lib/audit/audit-chain';
import { TABLES } from '../../adapters/store/knex/tables';
import {
  actingAs,
  type BatchOrderStore,
  type Actor,
  type AuditLogProvider,
  type StoredKeyRewriting,
  type Store,
  type UserAdministration,
  JOB_KINDS,
  type JobStoreProvider,
} from '../../lib/ports';
import { cliRunner } from '../cli/helpers';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, newCertificate, signRequest } from '../store/records';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';

const OPERATOR: Actor = { type: 'operator', name: 'root', protocol: 'cli' };
const API_USER: Actor = { type: 'api_user', id: 1, name: 'alice', protocol: 'rest', address: '192.0.2.7' };

describe.each(testDatabaseTargets())('audit log on $name', (target) => {
  let db: TestDatabase;
  let store: Store & AuditLogProvider & StoredKeyRewriting & UserAdministration & BatchOrderStore & JobStoreProvider;
  beforeAll(async () => {
    db = await openTestDatabase(target);
    store = db.store as typeof store;
  });
  afterAll(() => db?.close());
  beforeEach(() => db.truncate());

  const rows = () => store.auditLog.auditRows({ limit: 1000 });
  const count = async (table: string) => Number(((await db.knex(table).count('* as n').first()) as { n: string | number }).n);

  /** A CA, a certificate with non-ASCII text, a revocation, user changes and a KEK rotation: 9 records. */
  async function someHistory(): Promise<void> {
    const ca = await actingAs(store, OPERATOR).insertCa(newCa({ name: 'Zürich 🔐' }));
    const cert = await store.insertCertificate(newCertificate(ca.id, { cn: 'größe.example' }));
    await actingAs(store, API_USER).revokeCertificate(cert.id, 'key_compromise', null, new Date());
    const bob = await actingAs(store, OPERATOR).createUser('bob', 'hash-1', ['view_certificate']);
    await actingAs(store, OPERATOR).updateUser(bob.id, { passwordHash: 'hash-2' });
    await actingAs(store, OPERATOR).updateUser(bob.id, { permissions: ['sign_certificate', 'view_certificate'] });
    await actingAs(store, OPERATOR).deleteUser(bob.id);
    await actingAs(store, OPERATOR).rewriteStoredKeys('default', (key) => ({ ...key.options, rewrapped: true }), {
      from_kek: 'aaaa',
      to_kek: 'bbbb',
    });
    // Written in a session whose time zone is far from UTC: the chain must not depend on it.
    await db.knex.transaction(async (trx) => {
      await trx.raw(`SET LOCAL TIME ZONE 'Asia/Kolkata'`);
      await trx.raw(`SELECT ca_api_event('test.noted', '{"type":"system","protocol":"library"}'::json, NULL, NULL, '{"x" : 1}'::json)`);
    });
  }

  it('chains every record: the database and the JavaScript recomputation agree, whatever the session time zone', async () => {
    await someHistory();
    const all = await rows();
    expect(all.map((r) => r.type)).toEqual([
      'ca.created',
      'certificate.issued',
      'certificate.revoked',
      'user.created',
      'user.password_changed',
      'user.permissions_changed',
      'user.deleted',
      'kek.rotated',
      'test.noted',
    ]);
    let previous = GENESIS_HASH;
    for (const row of all) {
      expect(row.hash).toBe(auditHash(previous, row));
      previous = row.hash;
    }
    expect(all[8].created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(Math.abs(Date.parse(all[8].created) - Date.now())).toBeLessThan(60_000); // UTC, not Kolkata's wall clock
    expect(all[8].dataText).toBe('{"x" : 1}'); // json as stored, not re-serialised
    expect(JSON.parse(all[2].actorText)).toEqual(API_USER);
    expect(JSON.parse(all[5].dataText)).toEqual({
      username: 'bob',
      user_id: expect.any(Number),
      permissions: [
        { permission: 'sign_certificate', ca: null },
        { permission: 'view_certificate', ca: null },
      ],
    });
    expect(all[4].dataText).not.toContain('hash-2');
    expect(JSON.parse(all[7].dataText)).toMatchObject({ from_kek: 'aaaa', to_kek: 'bbbb', keys: 1, key_backend: 'default' });
    expect(await verifyAuditChain(store.auditLog, 4)).toEqual({ intact: true, records: 9, head: all[8].hash });
    expect(await cliRunner(store)(['verify_audit_log'])).toMatchObject({
      code: 0,
      stdout: `Audit log intact: 9 record(s), chain head ${all[8].hash}.\n`,
    });
  });

  it("auditRows filters by certificate serial: only that certificate's records, of its CA when both are given", async () => {
    const ca = await actingAs(store, OPERATOR).insertCa(newCa());
    const other = await actingAs(store, OPERATOR).insertCa(newCa());
    const cert = await store.insertCertificate(newCertificate(ca.id));
    await store.insertCertificate(newCertificate(ca.id));
    // The same serial at another CA (serials are unique per CA only).
    await store.insertCertificate(newCertificate(other.id, { serial: cert.serial }));
    await actingAs(store, API_USER).revokeCertificate(cert.id, 'superseded', null, new Date());
    const history = await store.auditLog.auditRows({ caSerial: ca.serial, serial: cert.serial });
    expect(history.map((r) => [r.type, r.caSerial, r.serial])).toEqual([
      ['certificate.issued', ca.serial, cert.serial],
      ['certificate.revoked', ca.serial, cert.serial],
    ]);
    expect((await store.auditLog.auditRows({ serial: cert.serial })).map((r) => r.caSerial)).toEqual([ca.serial, other.serial, ca.serial]);
    expect(await store.auditLog.auditRows({ caSerial: ca.serial, serial: 'ABCDEF' })).toEqual([]);
  });

  it('audit_log exports the records as JSON lines or CSV, filtered by CA and by --since (an id or a date)', async () => {
    await someHistory();
    const all = await rows();
    const ca = all[0];
    const cli = cliRunner(store);
    const jsonl = await cli(['audit_log']);
    expect(jsonl.code).toBe(0);
    const lines = jsonl.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.id)).toEqual(all.map((r) => r.id));
    expect(lines[2]).toEqual({
      id: all[2].id,
      created: all[2].created,
      type: 'certificate.revoked',
      actor: API_USER,
      ca_serial: ca.caSerial,
      serial: all[2].serial,
      data: expect.objectContaining({ reason: 'key_compromise' }),
      hash: all[2].hash,
    });

    const byCa = await cli(['audit_log', '--ca', 'Zürich 🔐', '--since', String(all[0].id)]);
    expect(
      byCa.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { type: string }).type),
    ).toEqual(['certificate.issued', 'certificate.revoked']);
    const fromId = await cli(['audit_log', '--since', String(all[7].id), '--format', 'csv']);
    const csv = fromId.stdout.trimEnd().split('\n');
    expect(csv[0]).toBe('id,created,type,actor_type,actor_name,actor_id,protocol,address,ca_serial,serial,data,hash');
    expect(csv.slice(1)).toEqual([`${all[8].id},${all[8].created},test.noted,system,,,library,,,,"{""x"" : 1}",${all[8].hash}`]);
    const revokedCsv = (await cli(['audit_log', '--format', 'csv'])).stdout.split('\n')[3];
    expect(revokedCsv).toContain(`,certificate.revoked,api_user,alice,1,rest,192.0.2.7,${ca.caSerial},`);
    expect((await cli(['audit_log', '--since', '2000-01-01'])).stdout).toBe(jsonl.stdout);
    expect((await cli(['audit_log', '--since', '2999-01-01T00:00:00Z'])).stdout).toBe('');
    expect((await cli(['audit_log', '--since', 'yesterday'])).stderr).toContain('neither an event id nor an ISO 8601 date');
  });

  it('filters by event type and by actor name (exactly), with the CA filter and paging; newest first on request', async () => {
    await someHistory();
    const all = await rows();
    const log = store.auditLog;
    const ids = (list: { id: number }[]) => list.map((r) => r.id);
    const byRoot = ids(all.filter((r) => (JSON.parse(r.actorText) as Actor).name === 'root'));
    expect(byRoot.length).toBeGreaterThanOrEqual(4);
    expect(ids(await log.auditRows({ type: 'user.password_changed' }))).toEqual([all[4].id]);
    expect(ids(await log.auditRows({ actorName: 'alice' }))).toEqual([all[2].id]);
    expect(ids(await log.auditRows({ actorName: 'root' }))).toEqual(byRoot);
    for (const near of ['Alice', 'ali', 'alice ', "alice' OR '1'='1"]) expect(await log.auditRows({ actorName: near })).toEqual([]);
    expect(ids(await log.auditRows({ type: 'user.deleted', actorName: 'root' }))).toEqual([all[6].id]);
    expect(await log.auditRows({ type: 'certificate.revoked', actorName: 'root' })).toEqual([]);
    expect(ids(await log.auditRows({ type: 'certificate.revoked', caSerial: all[0].caSerial as string }))).toEqual([all[2].id]);
    expect(await log.auditRows({ type: 'certificate.revoked', caSerial: 'ABCDEF' })).toEqual([]);
    expect(ids(await log.auditRows({ actorName: 'root', limit: 2 }))).toEqual(byRoot.slice(0, 2));
    expect(ids(await log.auditRows({ actorName: 'root', limit: 2, afterId: byRoot[1] }))).toEqual(byRoot.slice(2, 4));
    expect(ids(await log.auditRows({ newestFirst: true, limit: 3 }))).toEqual(ids(all).reverse().slice(0, 3));
    expect(ids(await log.auditRows({ newestFirst: true, actorName: 'root' }))).toEqual([...byRoot].reverse());
    // Paging newest first (the admin audit log): the records before the oldest shown, bounded below by afterId too.
    const newest = [...ids(all)].reverse();
    expect(ids(await log.auditRows({ newestFirst: true, beforeId: newest[2], limit: 3 }))).toEqual(newest.slice(3, 6));
    expect(ids(await log.auditRows({ newestFirst: true, beforeId: newest[0], afterId: newest[4] }))).toEqual(newest.slice(1, 4));
    expect(ids(await log.auditRows({ newestFirst: true, actorName: 'root', beforeId: byRoot[2] }))).toEqual(byRoot.slice(0, 2).reverse());
    expect(() => log.auditRows({ beforeId: -1 })).toThrow(/beforeId/); // as afterId: before any query
  });

  it('is append-only; a record changed or removed behind the triggers is named by verify_audit_log', async () => {
    await someHistory();
    const [, , third, fourth] = await rows();
    await expect(db.knex(TABLES.events).where({ id: third.id }).update({ type: 'certificate.issued' })).rejects.toThrow(/append-only/);
    await expect(db.knex(TABLES.events).where({ id: third.id }).delete()).rejects.toThrow(/append-only/);
    await expect(db.knex.raw(`TRUNCATE ${TABLES.events}`)).rejects.toThrow(/append-only/);

    // What an intruder who owns the table does: switch the guard off, edit, switch it on.
    const behindTheTriggers = async (sql: string) => {
      await db.knex.transaction(async (trx) => {
        await trx.raw(`ALTER TABLE ${TABLES.events} DISABLE TRIGGER ca_api_audit_append_only`);
        await trx.raw(sql);
        await trx.raw(`ALTER TABLE ${TABLES.events} ENABLE TRIGGER ca_api_audit_append_only`);
      });
    };
    const cli = cliRunner(store);
    await behindTheTriggers(`UPDATE ${TABLES.events} SET data = '{"reason":"superseded"}' WHERE id = ${third.id}`);
    const changed = await cli(['verify_audit_log']);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain(`Audit log broken at record ${third.id}:`);
    expect(changed.stderr).toContain('2 record(s) before it are intact');

    // Hash recomputed too (with the database's own function): then the next record breaks.
    await behindTheTriggers(
      `UPDATE ${TABLES.events} e SET hash = ca_api_audit_hash((SELECT hash FROM ${TABLES.events} WHERE id = ${third.id - 1}), e) WHERE id = ${third.id}`,
    );
    expect((await cli(['verify_audit_log'])).stderr).toContain(`Audit log broken at record ${fourth.id}:`);

    await behindTheTriggers(`DELETE FROM ${TABLES.events} WHERE id = ${third.id}`);
    expect((await cli(['verify_audit_log'])).stderr).toContain(
      `broken at record ${fourth.id}: its hash does not follow from record ${third.id - 1}`,
    );
  });

  it('migration 0011 chains the events written before it (and its down migration undoes it)', async () => {
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    await db.knex.migrate.down({ ...config, name: '0011_audit_chain' });
    try {
      const ca = await store.insertCa(newCa({ name: 'Before' }));
      await store.insertCertificate(newCertificate(ca.id));
      await store.createUser('early', 'hash', []);
    } finally {
      await db.knex.migrate.latest(config);
    }
    await store.insertCertificate(newCertificate((await store.listCas())[0].id));
    const all = await rows();
    expect(all.map((r) => r.type)).toEqual(['ca.created', 'certificate.issued', 'user.created', 'certificate.issued']);
    expect(await verifyAuditChain(store.auditLog)).toEqual({ intact: true, records: 4, head: all[3].hash });
  });

  it("a sign order's requester (with its address) is the actor of its certificate.issued (queued path) and its order.failed", async () => {
    const ca = await store.insertCa(newCa());
    const alice = await store.createUser('alice', 'hash', []);
    const actor = { type: 'api_user', id: alice.id, name: 'alice', protocol: 'rest', address: '2001:db8::7' };
    const queued = await store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest(), requester: actor });
    const failing = await store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest(), requester: actor });
    expect(queued.requester).toEqual(actor);
    // The runner signs with the order's requester (lib/ca/issuance/order-store.ts), read back from its row.
    await store.jobs.claim([JOB_KINDS.restOrder], 'runner', 10, 60_000);
    const [pending] = await store.pendingOrders!([queued.id]);
    await store.issueOrders!(
      [{ order: pending, certificate: { ...newCertificate(ca.id), requester: pending.requester } }],
      new Date(),
      'runner',
    );
    await store.markOrderFailed(failing.id, 'no');
    const actors = (await rows())
      .filter((r) => r.type !== 'ca.created' && r.type !== 'user.created')
      .map((r) => [r.type, JSON.parse(r.actorText)]);
    expect(actors).toEqual([
      ['certificate.issued', actor],
      ['order.failed', actor],
    ]);
  });

  it('forced write failure: no change without its record, no record without its change', async () => {
    await db.knex.raw(`ALTER TABLE ${TABLES.events} ADD CONSTRAINT test_no_user_events CHECK (type NOT LIKE 'user.%') NOT VALID`);
    try {
      await expect(actingAs(store, OPERATOR).createUser('carol', 'hash', [])).rejects.toThrow();
      expect(await count(TABLES.users)).toBe(0);
    } finally {
      await db.knex.raw(`ALTER TABLE ${TABLES.events} DROP CONSTRAINT test_no_user_events`);
    }
    const carol = await store.createUser('carol', 'hash', []);
    await db.knex.raw(`ALTER TABLE ${TABLES.events} ADD CONSTRAINT test_no_user_events CHECK (type NOT LIKE 'user.%') NOT VALID`);
    try {
      await expect(store.deleteUser(carol.id)).rejects.toThrow();
      await expect(store.updateUser(carol.id, { passwordHash: 'other' })).rejects.toThrow();
      expect((await store.findUser('carol'))?.passwordHash).toBe('hash');
    } finally {
      await db.knex.raw(`ALTER TABLE ${TABLES.events} DROP CONSTRAINT test_no_user_events`);
    }

    // The record is written, then the commit fails after it (a later deferred check): both go.
    await db.knex.raw(
      `CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$`,
    );
    await db.knex.raw(
      `CREATE CONSTRAINT TRIGGER zz_test_refuse AFTER INSERT ON ${TABLES.users} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse()`,
    );
    const before = (await rows()).length;
    try {
      await expect(store.createUser('dave', 'hash', [])).rejects.toThrow(/refused at commit/);
    } finally {
      await db.knex.raw(`DROP TRIGGER zz_test_refuse ON ${TABLES.users}`);
      await db.knex.raw(`DROP FUNCTION test_refuse()`);
    }
    expect(await store.findUser('dave')).toBeNull();
    expect((await rows()).length).toBe(before);
    expect((await verifyAuditChain(store.auditLog)).intact).toBe(true);
  });
});
