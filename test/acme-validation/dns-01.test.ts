/** dns-01 (RFC 8555 §8.4) against the test DNS server, asked through the validator's `dnsServers`. */
import { createHash } from 'crypto';
import { challengeValidator, type ValidatorSettings } from '../../adapters/acme-validation';
import type { ChallengeToValidate, ValidationOutcome } from '../../lib/ports/acme';
import { startDnsServer, TYPE, type TestDnsServer } from '../helpers/dns-server';
import { unusedPort } from '../helpers/sockets';

const KEY_AUTHORIZATION = 'evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA.9jg46WB3rR_AHD-EBXdN7cBkH1WOu0tA3M9fm21mqTI';
const DIGEST = createHash('sha256').update(KEY_AUTHORIZATION).digest('base64url');

let dns: TestDnsServer;
beforeAll(async () => (dns = await startDnsServer()));
afterAll(() => dns.close());

function validator(settings: Partial<ValidatorSettings> = {}) {
  return challengeValidator({ dnsServers: [dns.address], timeoutMs: 5000, ...settings });
}

function challenge(value: string, type: 'dns' | 'ip' = 'dns'): ChallengeToValidate {
  return {
    type: 'dns-01',
    identifier: { type, value },
    token: 'evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA',
    keyAuthorization: KEY_AUTHORIZATION,
  };
}

function failed(outcome: ValidationOutcome) {
  if (outcome.valid) throw new Error('expected a failed validation');
  return outcome;
}

test('the digest in one of the TXT records at _acme-challenge.{name}', async () => {
  dns.setTxt('_acme-challenge.valid.test', ['stale-value-of-an-earlier-order', DIGEST]);
  expect(await validator().validate(challenge('valid.test'))).toEqual({ valid: true });
  expect(dns.queries).toContainEqual(expect.objectContaining({ name: '_acme-challenge.valid.test', type: TYPE.TXT }));
});

test('a record of several character-strings is read as their concatenation', async () => {
  dns.setTxt('_acme-challenge.split.test', [[DIGEST.slice(0, 20), DIGEST.slice(20)]]);
  expect(await validator().validate(challenge('split.test'))).toEqual({ valid: true });
});

test('a wrong digest: incorrectResponse, final, showing what was found', async () => {
  const other = createHash('sha256').update('another.key-authorization').digest('base64url');
  dns.setTxt('_acme-challenge.wrong.test', [other, 'x'.repeat(300)]);
  const outcome = failed(await validator().validate(challenge('wrong.test')));
  expect(outcome.problem.type).toBe('incorrectResponse');
  expect(outcome.retryable).toBe(false);
  expect(outcome.problem.detail).toContain(`no TXT record at _acme-challenge.wrong.test is "${DIGEST}"`);
  expect(outcome.problem.detail).toContain(`"${other}"`);
  expect(outcome.problem.detail).toContain(`"${'x'.repeat(64)}..."`); // a long record is cut
});

test('no record: dns, worth another attempt (it may still be propagating)', async () => {
  let outcome = failed(await validator().validate(challenge('nothing.test')));
  expect(outcome.problem).toEqual({
    type: 'dns',
    detail: expect.stringContaining('NXDOMAIN looking up TXT for _acme-challenge.nothing.test'),
  });
  expect(outcome.retryable).toBe(true);
  dns.setA('_acme-challenge.a-only.test', ['127.0.0.1']);
  outcome = failed(await validator().validate(challenge('a-only.test')));
  expect(outcome.problem).toEqual({ type: 'dns', detail: 'DNS problem: no TXT record found at _acme-challenge.a-only.test' });
  expect(outcome.retryable).toBe(true);
});

test('an IP identifier: malformed, final (RFC 8738 §7)', async () => {
  const outcome = failed(await validator().validate(challenge('127.0.0.1', 'ip')));
  expect(outcome).toEqual({
    valid: false,
    retryable: false,
    problem: { type: 'malformed', detail: expect.stringContaining('RFC 8738 §7') },
  });
});

test('a DNS server that does not answer: dns, worth another attempt, within timeoutMs', async () => {
  const nobody = await unusedPort();
  const outcome = failed(await validator({ dnsServers: [`127.0.0.1:${nobody}`], timeoutMs: 1000 }).validate(challenge('valid.test')));
  expect(outcome.problem.type).toBe('dns');
  expect(outcome.problem.detail).toMatch(
    /^DNS problem: (timeout|connection refused by the DNS server) looking up TXT for _acme-challenge\.valid\.test$/,
  );
  expect(outcome.retryable).toBe(true);
});
