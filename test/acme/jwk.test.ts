/**
 * ACME account keys as JWKs (lib/acme/jwk.ts): which public keys are accepted (RFC 7518 §6, RFC 8037
 * §2), their RFC 7638 thumbprints against the RFCs' published values, and key authorizations
 * (RFC 8555 §8.1). Keys made here come from Node's own JWK export, the oracle for their members.
 */
import * as crypto from 'crypto';
import fc from 'fast-check';
import { jwkThumbprint, keyAuthorization, publicKeyFromJwk, type PublicJwk } from '../../lib/acme/jwk';
import { AcmeProblem } from '../../lib/acme/problems';
import { problemOf } from '../helpers/acme-problem';

/** RFC 7638 §3.1: the example RSA key (with its optional members) and its published thumbprint. */
const RFC7638_KEY = {
  kty: 'RSA',
  n:
    '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn6' +
    '4tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n9' +
    '1CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  e: 'AQAB',
  alg: 'RS256',
  kid: '2011-04-29',
};
const RFC7638_THUMBPRINT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

/** RFC 8037 §A.2 (public key) and §A.3 (its thumbprint). */
const RFC8037_KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const RFC8037_THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';

/** RFC 7515 §A.3.1: the example P-256 key. */
const RFC7515_EC_KEY = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};

type Pair = { publicKey: crypto.KeyObject; privateKey: crypto.KeyObject };
const KEYS: Record<string, Pair> = {
  'RSA 2048': crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }),
  'P-256': crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  'P-384': crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  'P-521': crypto.generateKeyPairSync('ec', { namedCurve: 'P-521' }),
  Ed25519: crypto.generateKeyPairSync('ed25519'),
};
const jwkOf = (key: crypto.KeyObject): Record<string, unknown> => ({ ...key.export({ format: 'jwk' }) });

describe('publicKeyFromJwk', () => {
  test.each(Object.entries(KEYS))('accepts a %s public key, the same key Node exported', (_name, pair) => {
    const { key, jwk } = publicKeyFromJwk(jwkOf(pair.publicKey));
    expect(key.type).toBe('public');
    expect(key.equals(pair.publicKey)).toBe(true);
    expect(jwk).toEqual(jwkOf(pair.publicKey));
  });

  test('accepts the RFCs’ example keys, reduced to their required members', () => {
    expect(publicKeyFromJwk(RFC7638_KEY).jwk).toEqual({ kty: 'RSA', n: RFC7638_KEY.n, e: 'AQAB' });
    expect(publicKeyFromJwk(RFC7515_EC_KEY).jwk).toEqual(RFC7515_EC_KEY);
    expect(publicKeyFromJwk(RFC8037_KEY).jwk).toEqual(RFC8037_KEY);
    expect(publicKeyFromJwk({ ...RFC8037_KEY, use: 'sig', kid: 'x' }).jwk).toEqual(RFC8037_KEY);
  });

  test.each(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'])('refuses a JWK with the private member %s', (name) => {
    const problem = problemOf(() => publicKeyFromJwk({ ...jwkOf(KEYS['P-256'].publicKey), [name]: 'AQAB' }));
    expect(problem.type).toBe('badPublicKey');
    expect(problem.status).toBe(400);
  });

  test.each(Object.entries(KEYS))('refuses the %s private key as Node exports it', (_name, pair) => {
    expect(problemOf(() => publicKeyFromJwk(jwkOf(pair.privateKey))).type).toBe('badPublicKey');
  });

  test('refuses an RSA key under 2048 bits or over 8192 bits', () => {
    const small = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    expect(problemOf(() => publicKeyFromJwk(jwkOf(small))).detail).toMatch(/2048 to 8192 bits; this one has 1024/);
    const huge = Buffer.alloc(1025, 0xff).toString('base64url'); // 8200 bits, odd
    expect(problemOf(() => publicKeyFromJwk({ kty: 'RSA', n: huge, e: 'AQAB' })).detail).toMatch(/this one has 8200/);
  });

  test.each([
    ['1', 'AQ'],
    ['2 (even)', 'Ag'],
    ['65536 (even)', 'AQAA'],
    ['over 32 bits', 'AQAAAAE'],
  ])('refuses the RSA exponent %s', (_what, e) => {
    const jwk = { ...jwkOf(KEYS['RSA 2048'].publicKey), e };
    expect(problemOf(() => publicKeyFromJwk(jwk)).type).toBe('badPublicKey');
  });

  test('strips zero octets prepended to n and e (RFC 8555 §8.1): one key, one form, one thumbprint', () => {
    const padded = (b64: string) => Buffer.concat([Buffer.alloc(1), Buffer.from(b64, 'base64url')]).toString('base64url');
    const { jwk } = publicKeyFromJwk({ kty: 'RSA', n: padded(RFC7638_KEY.n), e: padded('AQAB') });
    expect(jwk).toEqual({ kty: 'RSA', n: RFC7638_KEY.n, e: 'AQAB' });
    expect(jwkThumbprint(jwk)).toBe(RFC7638_THUMBPRINT);
  });

  test('refuses EC coordinates of the wrong length, leading zeros dropped included (RFC 7518 §6.2.1.2)', () => {
    const jwk = jwkOf(KEYS['P-256'].publicKey);
    const short = Buffer.from(jwk.x as string, 'base64url')
      .subarray(1)
      .toString('base64url');
    expect(problemOf(() => publicKeyFromJwk({ ...jwk, x: short })).detail).toMatch(/32 octets/);
    expect(problemOf(() => publicKeyFromJwk({ ...jwk, crv: 'P-384' })).type).toBe('badPublicKey');
  });

  test('refuses an EC point that is not on its curve (Node checks it)', () => {
    const jwk = { ...RFC7515_EC_KEY, y: Buffer.alloc(32, 1).toString('base64url') };
    expect(problemOf(() => publicKeyFromJwk(jwk)).detail).toBe('The JWK is not a valid EC public key.');
  });

  test.each([
    ['an oct key', { kty: 'oct', k: 'c2VjcmV0' }],
    ['an oct key without k', { kty: 'oct' }],
    ['an unknown kty', { kty: 'DSA', y: 'AQAB' }],
    ['no kty', { n: RFC7638_KEY.n, e: 'AQAB' }],
    ['a kty that is not a string', { kty: 1 }],
    ['secp256k1', { ...RFC7515_EC_KEY, crv: 'secp256k1' }],
    ['P-192', { ...RFC7515_EC_KEY, crv: 'P-192' }],
    ['an Ed448 key of 32 octets', { kty: 'OKP', crv: 'Ed448', x: RFC8037_KEY.x }],
    ['X25519', { ...RFC8037_KEY, crv: 'X25519' }],
    ['an Ed25519 key of 31 octets', { ...RFC8037_KEY, x: Buffer.alloc(31, 7).toString('base64url') }],
    ['n missing', { kty: 'RSA', e: 'AQAB' }],
    ['n not a string', { kty: 'RSA', n: 12345, e: 'AQAB' }],
    ['padding', { ...RFC8037_KEY, x: `${RFC8037_KEY.x}=` }],
    ['the base64 alphabet', { ...RFC7515_EC_KEY, y: RFC7515_EC_KEY.y.replace(/_/g, '/') }],
    ['white space', { ...RFC8037_KEY, x: `${RFC8037_KEY.x.slice(0, 10)} ${RFC8037_KEY.x.slice(10)}` }],
    ['non-zero trailing bits', { ...RFC8037_KEY, x: `${RFC8037_KEY.x.slice(0, -1)}p` }],
    ['an empty member', { kty: 'RSA', n: '', e: 'AQAB' }],
  ])('refuses %s as badPublicKey', (_what, jwk) => {
    expect(problemOf(() => publicKeyFromJwk(jwk)).type).toBe('badPublicKey');
  });

  test.each([[null], ['{"kty":"EC"}'], [[RFC8037_KEY]], [42], [undefined], [Buffer.from('{}')]])(
    'refuses %p, which is not a JWK object at all, as malformed',
    (jwk) => {
      expect(problemOf(() => publicKeyFromJwk(jwk)).type).toBe('malformed');
    },
  );

  test('reads own members only (a JSON "__proto__" member is data, not a prototype)', () => {
    const jwk = JSON.parse(`{"__proto__": {"kty": "OKP", "crv": "Ed25519", "x": "${RFC8037_KEY.x}"}}`) as unknown;
    expect(problemOf(() => publicKeyFromJwk(jwk)).detail).toBe('The JWK has no "kty" string.');
  });

  test('only ever throws AcmeProblem (seeded fuzz of JWK-like objects)', () => {
    const member = fc.oneof(
      fc.constantFrom(RFC8037_KEY.x, RFC7515_EC_KEY.x, RFC7515_EC_KEY.y, RFC7638_KEY.n, 'AQAB', '', '='),
      fc.base64String().map((s) => s.replace(/=+$/, '')),
      fc.anything(),
    );
    const jwk = fc.record(
      {
        kty: fc.oneof(fc.constantFrom('RSA', 'EC', 'OKP', 'oct'), fc.anything()),
        crv: fc.oneof(fc.constantFrom('P-256', 'P-384', 'P-521', 'Ed25519', 'Ed448'), fc.anything()),
        n: member,
        e: member,
        x: member,
        y: member,
        d: member,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(jwk, fc.anything()), (value) => {
        try {
          publicKeyFromJwk(value);
        } catch (e) {
          if (!(e instanceof AcmeProblem)) throw e;
        }
      }),
      { seed: 8555, numRuns: 3000 },
    );
  });
});

describe('jwkThumbprint', () => {
  test('gives RFC 7638 §3.1’s published thumbprint of its example RSA key', () => {
    expect(jwkThumbprint(publicKeyFromJwk(RFC7638_KEY).jwk)).toBe(RFC7638_THUMBPRINT);
  });

  test('gives RFC 8037 §A.3’s published thumbprint of its example Ed25519 key', () => {
    expect(jwkThumbprint(publicKeyFromJwk(RFC8037_KEY).jwk)).toBe(RFC8037_THUMBPRINT);
  });

  test('hashes the required EC members in lexicographic order, without white space (RFC 7638 §3.2, §3.3)', () => {
    const { crv, x, y } = RFC7515_EC_KEY;
    const canonical = `{"crv":"${crv}","kty":"EC","x":"${x}","y":"${y}"}`;
    const expected = crypto.createHash('sha256').update(canonical).digest('base64url');
    const reordered = { y, x, kty: 'EC', crv, kid: 'ignored' } as unknown;
    expect(jwkThumbprint(publicKeyFromJwk(reordered).jwk)).toBe(expected);
  });

  test('tells keys apart', () => {
    const prints = Object.values(KEYS).map((pair) => jwkThumbprint(publicKeyFromJwk(jwkOf(pair.publicKey)).jwk));
    expect(new Set(prints).size).toBe(prints.length);
    for (const print of prints) expect(print).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('keyAuthorization', () => {
  test('is the token, a period and the thumbprint (RFC 8555 §8.1)', () => {
    const jwk: PublicJwk = publicKeyFromJwk(RFC7638_KEY).jwk;
    const token = 'evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA';
    expect(keyAuthorization(token, jwk)).toBe(`${token}.${RFC7638_THUMBPRINT}`);
  });
});
