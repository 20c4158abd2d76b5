/**
 * The ACME runner's retries (the `acme_validation` job's next run) follow the ACME validation policy (lib/work/policies.ts): doubling from
 * `validationRetryMs`, with equal jitter, and at most an hour — a `validationRetryMs` of two hours
 * still retries within the hour (before the cap, its first retry was two hours away).
 */
import * as acme from 'acme-client';
import { TABLES } from '../../adapters/store/knex/tables';
import type { ValidationOutcome } from '../../lib/ports/acme';
import { testDatabaseTargets } from '../helpers/database';
import { startAcmeServer, type AcmeFixture } from './fixture';

const HOUR = 3_600_000;

/** acme-client's signed-request layer, which returns the HTTP response. */
interface RawApi {
  apiRequest(url: string, payload: unknown, validStatusCodes: number[]): Promise<{ data: { status: string } }>;
}

let server: AcmeFixture;
beforeAll(async () => {
  server = await startAcmeServer(testDatabaseTargets()[0], {
    validationRetryMs: 2 * HOUR,
    validationAttempts: 3,
    validator: {
      // A failure that may pass (a connection refused): retried.
      async validate(): Promise<ValidationOutcome> {
        return { valid: false, retryable: true, problem: { type: 'connection', detail: 'Connection refused.' } };
      },
    },
  });
});
afterAll(async () => {
  await server?.close();
});

test('a retryable failure is retried after half to all of min(validationRetryMs, 1 hour)', async () => {
  const client = new acme.Client({ directoryUrl: server.directory, accountKey: await acme.crypto.createPrivateEcdsaKey() });
  await client.createAccount({ termsOfServiceAgreed: true });
  const api = (client as unknown as { api: RawApi }).api;
  const order = await client.createOrder({ identifiers: [{ type: 'dns', value: 'capped.acme.test' }] });
  const [authz] = await client.getAuthorizations(order);
  const challenge = authz.challenges.find((c) => c.type === 'http-01');
  if (!challenge) throw new Error('no http-01 challenge');

  const before = Date.now();
  const started = await api.apiRequest(challenge.url, {}, [200]);
  expect(started.data.status).toBe('processing');
  // The next attempt is the challenge's `acme_validation` job, due at its run_at.
  const { id } = (await server.db.knex(TABLES.acmeChallenges).where({ token: challenge.token }).first('id')) as { id: number };
  let row: { attempts: number; run_at: Date | string | null; state: string } | undefined;
  for (let i = 0; i < 50 && !(row && row.attempts >= 1); i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    row = await server.db
      .knex(TABLES.jobs)
      .where({ kind: 'acme_validation', reference: String(id) })
      .first('attempts', 'run_at', 'state');
  }
  expect(row).toMatchObject({ attempts: 1, state: 'pending' });
  const wait = new Date(row?.run_at ?? NaN).getTime() - before;
  expect(wait).toBeGreaterThanOrEqual(HOUR / 2 - 1000);
  expect(wait).toBeLessThanOrEqual(HOUR + 5000);
});
