/**
 * ACME validations are `acme_validation` jobs (lib/acme/runner.ts, docs/DESIGN.md "Background jobs"),
 * run by the job runner with ACME's handlers on the real store: a validation whose instance died
 * (its job leased to it, nothing settled) is taken over once the lease lapses and not before; each
 * retryable failure makes the job pending again with its attempts counted and its run_at after the
 * back-off; the last attempt (`validationAttempts`, RFC 8555 §8.2) ends the challenge — and its
 * authorization and order — invalid with the last error, and the job done, never `failed`.
 */
import { acmeJobHandlers } from '../../lib/acme/runner';
import type { AcmeSigning } from '../../lib/acme/issue';
import { onChallengeStart } from '../../lib/acme/state-machine';
import { JobsRunner } from '../../lib/work/jobs-runner';
import type { AcmeStore, JobRecord, JobStore, ValidationOutcome } from '../../lib/ports';
import { TABLES } from '../../adapters/store/knex/tables';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from '../store/records';
import { record } from '../helpers/acme-state';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(testDatabaseTargets())('ACME validation jobs on $name', (target) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(async () => {
    await db?.close();
  });

  test("taken over after a dead instance's lease; retried as a job; the last attempt ends it invalid and the job done", async () => {
    const acme = (db.store as unknown as { acme: AcmeStore }).acme;
    const jobs = (db.store as unknown as { jobs: JobStore }).jobs;
    const ca = await db.store.insertCa(newCa());
    const jwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' };
    const accountId = (await acme.createAccount({ caId: ca.id, jwk, thumbprint: 'thumb', contact: [], termsOfServiceAgreed: true })).account
      .id;
    const name = 'retried.example';
    const order = await acme.createOrder({
      accountId,
      caId: ca.id,
      expires: new Date(Date.now() + 3_600_000),
      notBefore: null,
      notAfter: null,
      identifiers: [{ type: 'dns', value: name }],
      authorizations: [{ identifier: { type: 'dns', value: name }, wildcard: false, challenges: [{ type: 'http-01', token: 'tok' }] }],
    });
    const authz = await acme.findAuthorization(ca.id, order?.authorizations[0] as string);
    // The instance that started it dies before its first attempt: its job stays leased to it for 300 ms.
    const started = await acme.startValidation(
      { caId: ca.id, slug: authz?.challenges[0].slug as string, accountId },
      'dead-instance',
      300,
      new Date(),
      onChallengeStart(),
    );
    if (!started) throw new Error('not started');
    const jobOf = async (): Promise<JobRecord> =>
      (await jobs.listJobs({ kind: 'acme_validation' })).find((j) => j.reference === String(started.challenge.id)) as JobRecord;

    const problems = ['refused 1', 'refused 2', 'refused 3'];
    const seen: string[] = [];
    const validator = {
      async validate(): Promise<ValidationOutcome> {
        const detail = problems[seen.length] ?? 'refused again';
        seen.push(detail);
        return { valid: false, retryable: true, problem: { type: 'connection', detail } };
      },
    };
    const handlers = acmeJobHandlers(
      // Validations only: no issuance runs here, nothing signs.
      { acme, store: db.store, jobs, validator, signing: {} as AcmeSigning, logError: () => undefined },
      { validationAttempts: 3, validationRetryMs: 50, leaseMs: 60_000 },
    ).filter((h) => h.kind === 'acme_validation');
    const runner = new JobsRunner({ name: 'test', jobs, handlers, intervalMs: 60_000, concurrency: 4, logError: () => undefined });
    try {
      // Its lease is live: nobody else takes it.
      await runner.runNow();
      expect(seen).toEqual([]);
      expect(await jobOf()).toMatchObject({ state: 'running', leaseOwner: 'dead-instance', attempts: 0 });

      await sleep(350);
      await runner.runNow(); // taken over: the first attempt, failed, retried as the job
      expect(seen).toEqual(['refused 1']);
      const retried = await jobOf();
      expect(retried).toMatchObject({ state: 'pending', attempts: 1, leaseOwner: null, lastError: 'refused 1' });
      expect(retried.runAt.getTime()).toBeGreaterThan(retried.updated.getTime()); // after the back-off
      expect(await db.knex(TABLES.acmeChallenges).where({ id: started.challenge.id }).first()).toMatchObject({
        status: 'processing',
        attempts: 1,
      });
      // The dead instance comes back: its outcome is not written.
      expect(await record(acme, started, { kind: 'valid', at: new Date() }, 'dead-instance')).toBe(false);

      for (let i = 0; i < 40 && (await jobOf()).state !== 'done'; i++) {
        await sleep(60);
        await runner.runNow();
      }
    } finally {
      await runner.close();
    }
    expect(seen).toEqual(problems); // exactly validationAttempts attempts
    expect(await jobOf()).toMatchObject({ state: 'done', leaseOwner: null });
    const challenge = (await acme.findAuthorization(ca.id, authz?.slug as string))?.challenges[0];
    expect(challenge).toMatchObject({ status: 'invalid', attempts: 3, error: { detail: 'refused 3' } });
    expect(await acme.findAuthorization(ca.id, authz?.slug as string)).toMatchObject({ status: 'invalid' });
    expect(await acme.findOrder(ca.id, order?.slug as string)).toMatchObject({ status: 'invalid', error: { detail: 'refused 3' } });
    expect(await jobs.listJobs({ state: 'failed' })).toEqual([]);
  }, 30_000);
});
