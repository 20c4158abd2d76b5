/**
 * RFC 8555 §8.2: a challenge being validated (`processing`) is answered with `Retry-After`, so that a
 * client knows when to look again — lego, without one, waits 5 s before its first poll. A challenge
 * that is pending or done carries none.
 */
import * as acme from 'acme-client';
import type { ChallengeToValidate, ValidationOutcome } from '../../lib/ports/acme';
import { testDatabaseTargets } from '../helpers/database';
import { startAcmeServer, type AcmeFixture } from './fixture';

/** acme-client's signed-request layer, which returns the HTTP response with its headers. */
interface RawApi {
  apiRequest(
    url: string,
    payload: unknown,
    validStatusCodes: number[],
  ): Promise<{ headers: Record<string, string>; data: { status: string } }>;
}

let server: AcmeFixture;
/** Validations wait here until the test lets them through. */
let release: () => void = () => undefined;
let validating: Promise<void> = Promise.resolve();
let seen: ChallengeToValidate[] = [];

beforeAll(async () => {
  server = await startAcmeServer(testDatabaseTargets()[0], {
    validator: {
      async validate(challenge: ChallengeToValidate): Promise<ValidationOutcome> {
        seen.push(challenge);
        await validating;
        return { valid: true };
      },
    },
  });
});
afterAll(async () => {
  release();
  await server?.close();
});

test('processing: Retry-After on the challenge; pending and valid: none', async () => {
  validating = new Promise((resolve) => (release = resolve));
  seen = [];
  const client = new acme.Client({ directoryUrl: server.directory, accountKey: await acme.crypto.createPrivateEcdsaKey() });
  await client.createAccount({ termsOfServiceAgreed: true });
  const api = (client as unknown as { api: RawApi }).api;
  const order = await client.createOrder({ identifiers: [{ type: 'dns', value: 'retry-after.acme.test' }] });
  const [authz] = await client.getAuthorizations(order);
  const challenge = authz.challenges.find((c) => c.type === 'http-01');
  if (!challenge) throw new Error('no http-01 challenge');

  const pending = await api.apiRequest(challenge.url, null, [200]);
  expect(pending.data.status).toBe('pending');
  expect(pending.headers['retry-after']).toBeUndefined();

  const started = await api.apiRequest(challenge.url, {}, [200]);
  expect(started.data.status).toBe('processing');
  expect(started.headers['retry-after']).toBe('1');
  const polled = await api.apiRequest(challenge.url, null, [200]);
  expect(polled.data.status).toBe('processing');
  expect(polled.headers['retry-after']).toBe('1');

  release();
  await client.waitForValidStatus(challenge);
  expect(seen.map((c) => c.identifier.value)).toEqual(['retry-after.acme.test']);
  const valid = await api.apiRequest(challenge.url, null, [200]);
  expect(valid.data.status).toBe('valid');
  expect(valid.headers['retry-after']).toBeUndefined();
});
