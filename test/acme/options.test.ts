/**
 * `createCaApiRouter`'s `acme` options and their environment variables (docs/guides/acme.md): defaults,
 * the original's setting names and duration forms, bounds, and every mistake an OptionsError that
 * names the option — at construction, never inside a request.
 */
import { OptionsError, resolveOptions } from '../../lib/options';
import { parseDuration } from '../../lib/acme/options';

const DAY = 86_400_000;
const store = {
  findCaBySerial: () => null,
  listCas: () => [],
  findUser: () => null,
  getUserById: () => null,
  createOrder: () => null,
  getOrder: () => null,
};
const resolve = (acme: unknown, env: Record<string, string> = {}) =>
  resolveOptions({ acme: acme as never, env, store: store as never }).acme;

describe('acme options', () => {
  test('defaults: off, orders valid 1 hour, certificates 45 days (at most 90), 5 attempts', () => {
    expect(resolve(undefined)).toMatchObject({
      enabled: false,
      orderValidityMs: 3_600_000,
      defaultCertValidityMs: 45 * DAY,
      maxCertValidityMs: 90 * DAY,
      defaultCa: null,
      validationAttempts: 5,
      leaseMs: 60_000,
      newOrdersPerAccount: { limit: 300 },
    });
  });

  test("the original's settings from the environment: integers are days, units allowed", () => {
    const env = {
      CA_ENABLE_ACME: 'true',
      CA_ACME_ORDER_VALIDITY: '90m',
      CA_ACME_DEFAULT_CERT_VALIDITY: '30',
      CA_ACME_MAX_CERT_VALIDITY: '60d',
      CA_DEFAULT_CA: '4a:1b',
    };
    expect(resolve(undefined, env)).toMatchObject({
      enabled: true,
      orderValidityMs: 90 * 60_000,
      defaultCertValidityMs: 30 * DAY,
      maxCertValidityMs: 60 * DAY,
      // As given: CA_DEFAULT_CA is a serial or a name, as for ca-admin (lib/ca/default-ca.ts matches it).
      defaultCa: '4a:1b',
    });
    expect(resolve({ defaultCa: '4a:1b' }).defaultCa).toBe('4A1B');
    expect(resolve({ enabled: false }, env).enabled).toBe(false);
    expect(resolve({ leaseMs: 1000 }).leaseMs).toBe(1000);
    expect([parseDuration('1h'), parseDuration('45'), parseDuration('x')]).toEqual([3_600_000, 45 * DAY, null]);
  });

  test.each([
    [{ orderValidityMs: 1000 }, {}, /acme.orderValidityMs.*between 60 s and 1 days/],
    [{}, { CA_ACME_ORDER_VALIDITY: 'soon' }, /CA_ACME_ORDER_VALIDITY must be a number of days/],
    [{ defaultCertValidityMs: 100 * DAY, maxCertValidityMs: 90 * DAY }, {}, /must not be shorter than the default/],
    [{ defaultCa: 'not hex' }, {}, /acme.defaultCa/],
    [{ validationAttempts: -1 }, {}, /acme.validationAttempts/],
    [{ leaseMs: 999 }, {}, /acme.leaseMs.*from 1000 to 3600000/],
    [{ leaseMs: 3_600_001 }, {}, /acme.leaseMs/],
    [{ leaseMs: 1500.5 }, {}, /acme.leaseMs/],
    [{ leaseMs: '5s' }, {}, /acme.leaseMs/],
    [{ newOrdersPerAccount: { limit: 0, windowMs: 1 } }, {}, /acme.newOrdersPerAccount/],
    [{ validator: {} }, {}, /acme.validator/],
    [{ eabSecrets: { seal: () => 1 } }, {}, /acme.eabSecrets/],
    [{ enabled: 'yes' }, {}, /acme.enabled/],
    [{ unknown: 1 }, {}, /unknown/],
    [{}, { CA_ENABLE_ACME: 'perhaps' }, /CA_ENABLE_ACME/],
  ])('%j with %j is an OptionsError', (acme, env, message) => {
    expect(() => resolve(acme, env)).toThrow(OptionsError);
    expect(() => resolve(acme, env)).toThrow(message);
  });
});

test('ACME without a store is an OptionsError that says so', () => {
  expect(() => resolveOptions({ acme: { enabled: true }, env: {} })).toThrow(/`store` is required when ACME is enabled/);
});
