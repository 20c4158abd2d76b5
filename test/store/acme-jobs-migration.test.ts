/**
 * Migration 0034 (ACME's work as background jobs) moves the pending ACME work over: every
 * `processing` challenge gets one `acme_validation` job (its `next_attempt` as `run_at`, its attempts,
 * its live lease kept, a lapsed one not), every `processing` order one `acme_issuance` job (an order
 * waiting for a retry — 0006's `retry` lease — due then, a live lease kept), finished work none, and
 * the expiry its one recurring job; the old columns stay as they were (no migration drops a column).
 * Its `down` moves the jobs' live leases and due times back onto the columns, and deletes ACME's jobs. Then the ACME job handlers,
 * after the upgrade, finish the validations that were pending.
 */
import type { Knex } from 'knex';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/store/knex/migrations';
import { TABLES } from '../../adapters/store/knex/tables';
import { acmeJobHandlers } from '../../lib/acme/runner';
import type { AcmeSigning } from '../../lib/acme/issue';
import { JobsRunner } from '../../lib/work/jobs-runner';
import type { AcmeStore, JobStore, ValidationOutcome } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, signRequest } from './records';

const config = { migrationSource, tableName: MIGRATIONS_TABLE };
const HOUR = 3_600_000;

/** Apply the migrations up to and including `last`. */
async function migrateThrough(knex: Knex, last: string): Promise<void> {
  for (;;) {
    const [done] = (await knex.migrate.list(config)) as [{ name: string }[] | string[], unknown];
    if (done.map((m) => (typeof m === 'string' ? m : m.name)).includes(last)) return;
    await knex.migrate.up(config);
  }
}

async function columnsOf(knex: Knex, table: string): Promise<string[]> {
  return Object.keys(await knex(table).columnInfo()).sort();
}

describe.each(testDatabaseTargets())('migration 0034 moves pending ACME work to jobs, on $name', (target) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(target, { migrate: false });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('one job per processing challenge and order, the expiry, and back again; the validations then finish', async () => {
    const { knex } = db;
    await migrateThrough(knex, '0033_jobs');
    const acme = (db.store as unknown as { acme: AcmeStore }).acme;
    const ca = await db.store.insertCa(newCa());
    const jwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' };
    const accountId = (await acme.createAccount({ caId: ca.id, jwk, thumbprint: 'thumb', contact: [], termsOfServiceAgreed: true })).account
      .id;
    /** A new order for `name` with one http-01 challenge: the order's and the challenge's ids. */
    const order = async (name: string) => {
      const made = await acme.createOrder({
        accountId,
        caId: ca.id,
        expires: new Date(Date.now() + HOUR),
        notBefore: null,
        notAfter: null,
        identifiers: [{ type: 'dns', value: name }],
        authorizations: [{ identifier: { type: 'dns', value: name }, wildcard: false, challenges: [{ type: 'http-01', token: name }] }],
      });
      const authz = await acme.findAuthorization(ca.id, made?.authorizations[0] as string);
      return { order: made?.id as number, challenge: authz?.challenges[0].id as number };
    };
    const later = new Date(Date.now() + HOUR);
    const live = new Date(Date.now() + 60_000);
    const lapsed = new Date(Date.now() - 60_000);
    const challenge = (id: number, row: Record<string, unknown>) => knex(TABLES.acmeChallenges).where({ id }).update(row);
    const issuing = (id: number, row: Record<string, unknown>) =>
      knex(TABLES.acmeOrders)
        .where({ id })
        .update({ status: 'processing', request: JSON.stringify(signRequest()), ...row });

    // Validations: waiting for a retry, leased right now, whose runner died; and a challenge not started.
    const waiting = await order('waiting.example');
    await challenge(waiting.challenge, {
      status: 'processing',
      attempts: 2,
      next_attempt: later,
      error: JSON.stringify({ type: 'x', detail: 'no' }),
    });
    const held = await order('held.example');
    await challenge(held.challenge, { status: 'processing', next_attempt: new Date(), lease_owner: 'acme-1-old', lease_expires: live });
    const orphan = await order('orphan.example');
    await challenge(orphan.challenge, {
      status: 'processing',
      attempts: 1,
      next_attempt: lapsed,
      lease_owner: 'acme-2-dead',
      lease_expires: lapsed,
    });
    const idle = await order('idle.example');
    // Issuances: one waiting for its retry (0006's `retry` lease), one being issued now, one finished.
    const retrying = await order('retrying.example');
    await issuing(retrying.order, { attempts: 1, lease_owner: 'retry', lease_expires: later });
    const signing = await order('signing.example');
    await issuing(signing.order, { lease_owner: 'acme-1-old', lease_expires: live });
    const finished = await order('finished.example');
    await knex(TABLES.acmeOrders).where({ id: finished.order }).update({ status: 'valid' });

    await knex.migrate.up(config); // 0034
    const jobs = (await knex(TABLES.jobs).whereLike('kind', 'acme%').orderBy('id')) as Record<string, unknown>[];
    expect(jobs.map((j) => [j.kind, j.reference, j.state, j.attempts, j.lease_owner])).toEqual([
      ['acme_validation', String(waiting.challenge), 'pending', 2, null],
      ['acme_validation', String(held.challenge), 'pending', 0, 'acme-1-old'],
      ['acme_validation', String(orphan.challenge), 'pending', 1, null],
      ['acme_issuance', String(retrying.order), 'pending', 1, null],
      ['acme_issuance', String(signing.order), 'pending', 0, 'acme-1-old'],
      ['acme_expiry', 'orders', 'pending', 0, null],
    ]);
    expect(new Date(jobs[0].run_at as string).getTime()).toBe(later.getTime());
    expect(new Date(jobs[1].lease_until as string).getTime()).toBe(live.getTime());
    expect(new Date(jobs[2].run_at as string).getTime()).toBe(lapsed.getTime());
    expect(new Date(jobs[3].run_at as string).getTime()).toBe(later.getTime());
    expect(new Date(jobs[4].lease_until as string).getTime()).toBe(live.getTime());
    expect(jobs.some((j) => [String(idle.challenge), String(finished.order)].includes(String(j.reference)))).toBe(false);
    // The old columns stay, as they were (nothing reads them any more).
    expect(await columnsOf(knex, TABLES.acmeChallenges)).toEqual(expect.arrayContaining(['next_attempt', 'lease_owner', 'lease_expires']));
    expect(await knex(TABLES.acmeChallenges).where({ id: held.challenge }).first()).toMatchObject({ lease_owner: 'acme-1-old' });

    // Down: the jobs' live leases and due times back on the columns; ACME's jobs gone.
    await knex(TABLES.acmeChallenges).where({ id: orphan.challenge }).update({ lease_owner: null, lease_expires: null });
    await knex(TABLES.jobs)
      .where({ kind: 'acme_validation', reference: String(orphan.challenge) })
      .update({ lease_owner: 'jobs-3-new', lease_until: live });
    await knex.migrate.down(config);
    expect(await knex(TABLES.jobs).whereLike('kind', 'acme%')).toEqual([]);
    const challenges = (await knex(TABLES.acmeChallenges).orderBy('id')) as Record<string, unknown>[];
    const byId = new Map(challenges.map((c) => [c.id, c]));
    expect(byId.get(waiting.challenge)).toMatchObject({ attempts: 2, lease_owner: null });
    expect(new Date(byId.get(waiting.challenge)?.next_attempt as string).getTime()).toBe(later.getTime());
    expect(byId.get(held.challenge)).toMatchObject({ lease_owner: 'acme-1-old' });
    expect(byId.get(orphan.challenge)).toMatchObject({ lease_owner: 'jobs-3-new', attempts: 1 });
    expect(byId.get(idle.challenge)).toMatchObject({ status: 'pending', lease_owner: null, next_attempt: null });
    const orders = new Map(((await knex(TABLES.acmeOrders)) as Record<string, unknown>[]).map((o) => [o.id, o]));
    expect(orders.get(retrying.order)).toMatchObject({ lease_owner: 'retry', attempts: 1 });
    expect(new Date(orders.get(retrying.order)?.lease_expires as string).getTime()).toBe(later.getTime());
    expect(orders.get(signing.order)).toMatchObject({ lease_owner: 'acme-1-old' });
    expect(orders.get(finished.order)).toMatchObject({ lease_owner: null });

    // Up again; once the old leases and the retry wait are over, the ACME job handlers finish each
    // validation once: valid, its order ready, its job done.
    await knex.migrate.latest(config);
    await knex(TABLES.jobs).whereLike('kind', 'acme_validation').update({ run_at: lapsed, lease_owner: null, lease_until: null });
    const seen: string[] = [];
    const validator = {
      async validate(request: { token: string }): Promise<ValidationOutcome> {
        seen.push(request.token);
        return { valid: true };
      },
    };
    const jobStore = (db.store as unknown as { jobs: JobStore }).jobs;
    const handlers = acmeJobHandlers(
      // No issuance runs here (its kind's handler is left out): nothing signs.
      { acme, store: db.store, jobs: jobStore, validator, signing: {} as AcmeSigning, logError: (m, e) => console.error(m, e) },
      { validationAttempts: 3, validationRetryMs: 1000, leaseMs: 60_000 },
    ).filter((h) => h.kind === 'acme_validation');
    const runner = new JobsRunner({
      name: 'test',
      jobs: jobStore,
      handlers,
      intervalMs: 60_000,
      concurrency: 8,
      logError: () => undefined,
    });
    await runner.runNow();
    await runner.close();
    expect(seen.sort()).toEqual(['held.example', 'orphan.example', 'waiting.example']);
    for (const { challenge: id, order: orderId } of [waiting, held, orphan]) {
      expect(await knex(TABLES.acmeChallenges).where({ id }).first()).toMatchObject({ status: 'valid' });
      expect(await knex(TABLES.acmeOrders).where({ id: orderId }).first()).toMatchObject({ status: 'ready' });
      expect(
        await knex(TABLES.jobs)
          .where({ kind: 'acme_validation', reference: String(id) })
          .first(),
      ).toMatchObject({ state: 'done' });
    }
  });
});
