/**
 * The JWS layer of ACME (lib/acme/jws.ts, RFC 8555 §6.2). Oracles: the example JWS objects of
 * RFC 7515 §A.2–A.4 and RFC 8037 §A.4 with their published keys, and JWSs signed here by Node's
 * crypto (RSA PKCS#1 v1.5 and PSS with the salt as long as the digest, RFC 7518 §3.3 and §3.5;
 * ECDSA as R || S, RFC 7518 §3.4; Ed25519, RFC 8037). A seeded fuzz holds parseJws and verifyJws to
 * throwing nothing but AcmeProblem.
 */
import * as crypto from 'crypto';
import fc from 'fast-check';
import { publicKeyFromJwk } from '../../lib/acme/jwk';
import {
  MAX_JWS_BYTES,
  MAX_PAYLOAD_DEPTH,
  parseFlattenedJws,
  parseJws,
  SUPPORTED_ALGORITHMS,
  verifyJws,
  type JwsAlgorithm,
} from '../../lib/acme/jws';
import { AcmeProblem } from '../../lib/acme/problems';
import { problemOf } from '../helpers/acme-problem';

const b64u = (data: string | Buffer): string => Buffer.from(data).toString('base64url');
const MEMBERS = ['protected', 'payload', 'signature'] as const;
/** The flattened form of a compact JWS: the same three strings (RFC 7515 §7.1, §7.2.2). */
const flattenedOf = (compact: string) =>
  Object.fromEntries(compact.split('.').map((part, i) => [MEMBERS[i], part])) as Record<string, string>;
type Body = Record<string, unknown>;

const RFC7515_PAYLOAD = 'eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ';
/** The published examples: RFC 7515 §A.2.1, §A.3.1, §A.4.1 and RFC 8037 §A.2, §A.4 (keys and JWSs). */
const RFC_EXAMPLES = [
  {
    name: 'RFC 7515 §A.2 (RS256)',
    jwk: {
      kty: 'RSA',
      e: 'AQAB',
      n:
        'ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_Yp' +
        'RPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxv' +
        'b3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ',
    },
    compact:
      `eyJhbGciOiJSUzI1NiJ9.${RFC7515_PAYLOAD}.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8` +
      'W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383L' +
      'cOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGl' +
      'UPQGe77Rw',
  },
  {
    name: 'RFC 7515 §A.3 (ES256)',
    jwk: { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' },
    compact: `eyJhbGciOiJFUzI1NiJ9.${RFC7515_PAYLOAD}.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q`,
  },
  {
    name: 'RFC 7515 §A.4 (ES512)',
    jwk: {
      kty: 'EC',
      crv: 'P-521',
      x: 'AekpBQ8ST8a8VcfVOTNl353vSrDCLLJXmPk06wTjxrrjcBpXp5EOnYG_NjFZ6OvLFV1jSfS9tsz4qUxcWceqwQGk',
      y: 'ADSmRA43Z1DSNx_RvcLI87cdL07l6jQyyBXMoxVg_l2Th-x3S1WDhjDly79ajL4Kkd0AZMaZmh9ubmf63e3kyMj2',
    },
    compact:
      'eyJhbGciOiJFUzUxMiJ9.UGF5bG9hZA.AdwMgeerwtHoh-l192l60hp9wAHZFVJbLfD_UxMi70cwnZOYaRI1bKPWROc-mZZqwqT2SI-KGDKB34XO0aw_7XdtAG8' +
      'GaSwFKdCAPZgoXD2YBJZCPEX3xKpRwcdOO8KpEHwJjyqOgzDO7iKvU8vcnwNrmxYbSW9ERBXukOXolLzeO_Jn',
  },
  {
    name: 'RFC 8037 §A.4 (EdDSA)',
    jwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
    compact:
      'eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt' +
      '9g7sVvpAr_MuM0KAg',
  },
];

type Pair = { publicKey: crypto.KeyObject; privateKey: crypto.KeyObject };
const KEYS: Record<string, Pair> = {
  RSA: crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }),
  'P-256': crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  'P-384': crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  'P-521': crypto.generateKeyPairSync('ec', { namedCurve: 'P-521' }),
  Ed25519: crypto.generateKeyPairSync('ed25519'),
};
/** The key each algorithm signs with (RFC 7518 §3.1, RFC 8037 §3.1): RS* and PS* an RSA key. */
const keyOf = (alg: JwsAlgorithm): Pair =>
  KEYS[(({ ES256: 'P-256', ES384: 'P-384', ES512: 'P-521', EdDSA: 'Ed25519' } as Body)[alg] as string) ?? 'RSA'];

/** A JOSE signature made by Node: `alg`'s family picks the scheme, its digits the hash. */
function sign(alg: string, key: crypto.KeyObject, input: Buffer): Buffer {
  const hash = `sha${alg.slice(2)}`;
  if (alg.startsWith('RS')) return crypto.sign(hash, input, key);
  const pss = { padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST };
  if (alg.startsWith('PS')) return crypto.sign(hash, input, { key, ...pss });
  if (alg.startsWith('ES')) return crypto.sign(hash, input, { key, dsaEncoding: 'ieee-p1363' });
  return crypto.sign(null, input, key);
}

const NONCE = b64u(crypto.randomBytes(32));
const URL = 'https://ca.example/acme/new-order';

/** A flattened JWS of `header` and `payload` (an object as JSON, a string as is), signed by `key`. */
function jws(alg: string, key: crypto.KeyObject, header: Body, payload: unknown = { identifiers: [] }, signer = sign): Body {
  const protectedText = b64u(JSON.stringify({ alg, ...header }));
  const payloadText = typeof payload === 'string' ? b64u(payload) : b64u(JSON.stringify(payload));
  const signature = signer(alg, key, Buffer.from(`${protectedText}.${payloadText}`, 'ascii'));
  return { protected: protectedText, payload: payloadText, signature: b64u(signature) };
}

/** The protected header of an ACME request carrying its key (RFC 8555 §6.2), `alg` aside. */
const jwkHeader = (pair: Pair): Body => ({ nonce: NONCE, url: URL, jwk: pair.publicKey.export({ format: 'jwk' }) });

/** An ACME request of `alg` with the right key in its `jwk` header, plus `extra`. */
function request(alg: JwsAlgorithm, extra: Body = {}, payload?: unknown): Body {
  return jws(alg, keyOf(alg).privateKey, { ...jwkHeader(keyOf(alg)), ...extra }, payload);
}

const verified = (body: unknown): void => {
  const parsed = parseJws(body);
  verifyJws(parsed, parsed.signer.kind === 'jwk' ? parsed.signer.key : KEYS.RSA.publicKey);
};
/** `text` with the low bit of one byte flipped (counting from the end when `byte` is negative). */
const flipBit = (text: string, byte: number): string => {
  const bytes = Buffer.from(text, 'base64url');
  bytes[byte < 0 ? bytes.length + byte : byte] ^= 1;
  return b64u(bytes);
};

describe('verifyJws with the RFCs’ examples', () => {
  test.each(RFC_EXAMPLES)('$name verifies with its published key; a flipped bit does not', ({ jwk, compact }) => {
    const { key } = publicKeyFromJwk(jwk);
    const body = flattenedOf(compact);
    expect(() => verifyJws(parseFlattenedJws(body), key)).not.toThrow();
    for (const tampered of [
      { ...body, signature: flipBit(body.signature, 5) },
      { ...body, payload: flipBit(body.payload, 1) },
      { ...body, protected: b64u(Buffer.from(body.protected, 'base64url').toString().replace('{', '{ ')) },
    ]) {
      expect(problemOf(() => verifyJws(parseFlattenedJws(tampered), key)).detail).toBe('JWS signature invalid.');
    }
  });

  test('ES256 of §A.3 is badSignatureAlgorithm with the P-521 key of §A.4', () => {
    const { key } = publicKeyFromJwk(RFC_EXAMPLES[2].jwk);
    expect(problemOf(() => verifyJws(parseFlattenedJws(flattenedOf(RFC_EXAMPLES[1].compact)), key)).type).toBe('badSignatureAlgorithm');
  });
});

describe('verifyJws with JWSs signed by Node', () => {
  test.each(SUPPORTED_ALGORITHMS)('%s verifies, with the key of its jwk header', (alg) => {
    const parsed = parseJws(request(alg));
    expect(parsed.signer.kind).toBe('jwk');
    expect(parsed).toMatchObject({ alg, nonce: NONCE, url: URL, payload: { identifiers: [] }, postAsGet: false });
    expect(() => verifyJws(parsed, parsed.signer.kind === 'jwk' ? parsed.signer.key : KEYS.RSA.publicKey)).not.toThrow();
  });

  test.each(SUPPORTED_ALGORITHMS)('%s verifies a POST-as-GET with a kid, with the account key', (alg) => {
    const pair = keyOf(alg);
    const parsed = parseJws(jws(alg, pair.privateKey, { nonce: NONCE, url: URL, kid: 'https://ca.example/acme/acct/1' }, ''));
    expect(parsed).toMatchObject({ signer: { kind: 'kid', kid: 'https://ca.example/acme/acct/1' }, payload: undefined, postAsGet: true });
    expect(parsed.payloadBytes.length).toBe(0);
    expect(() => verifyJws(parsed, pair.publicKey)).not.toThrow();
  });

  const mismatches = SUPPORTED_ALGORITHMS.flatMap((alg) =>
    Object.keys(KEYS)
      .filter((k) => KEYS[k] !== keyOf(alg))
      .map((k) => [alg, k]),
  );
  test.each(mismatches)('%s with a %s key is badSignatureAlgorithm, listing the algorithms', (alg, keyName) => {
    const parsed = parseJws(request(alg as JwsAlgorithm));
    const problem = problemOf(() => verifyJws(parsed, KEYS[keyName].publicKey));
    expect(problem.type).toBe('badSignatureAlgorithm');
    expect(problem.body().algorithms).toEqual([...SUPPORTED_ALGORITHMS]);
  });

  test('a jwk of one curve with the algorithm of another is badSignatureAlgorithm', () => {
    const p384 = KEYS['P-384'];
    const body = jws('ES256', p384.privateKey, jwkHeader(p384));
    expect(problemOf(() => verified(body)).detail).toMatch(/"ES256" .* EC key on secp384r1; it signs with ES384\./);
  });

  test.each(SUPPORTED_ALGORITHMS)('%s: a flipped bit anywhere, a cut or longer signature is invalid', (alg) => {
    const body = request(alg) as Record<string, string>;
    const invalid = [
      { ...body, signature: flipBit(body.signature, 7) },
      { ...body, signature: flipBit(body.signature, -1) },
      { ...body, signature: b64u(Buffer.from(body.signature, 'base64url').subarray(1)) },
      { ...body, signature: b64u(Buffer.concat([Buffer.from(body.signature, 'base64url'), Buffer.alloc(1)])) },
      { ...body, signature: '' },
      { ...body, payload: b64u('{"identifiers":[{"type":"dns","value":"evil.example"}]}') },
      { ...body, payload: '' },
      { ...body, protected: request(alg, { nonce: b64u('another nonce') }).protected },
    ];
    for (const tampered of invalid) expect(problemOf(() => verified(tampered)).detail).toBe('JWS signature invalid.');
  });

  test('ES256 with a DER signature (not R || S) is invalid', () => {
    const pair = KEYS['P-256'];
    const der = (alg: string, key: crypto.KeyObject, input: Buffer) => crypto.sign('sha256', input, key);
    const body = jws('ES256', pair.privateKey, jwkHeader(pair), {}, der);
    expect(problemOf(() => verified(body)).detail).toBe('JWS signature invalid.');
  });

  test('PS256 with a salt longer than the digest is invalid (RFC 7518 §3.5)', () => {
    const longSalt = (alg: string, key: crypto.KeyObject, input: Buffer) =>
      crypto.sign('sha256', input, { key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 });
    const body = jws('PS256', KEYS.RSA.privateKey, jwkHeader(KEYS.RSA), {}, longSalt);
    expect(problemOf(() => verified(body)).detail).toBe('JWS signature invalid.');
  });

  test('RS256 relabelled PS256 (and back) is invalid', () => {
    const body = request('RS256') as Record<string, string>;
    const relabelled = { ...body, protected: b64u(Buffer.from(body.protected, 'base64url').toString().replace('RS256', 'PS256')) };
    expect(problemOf(() => verified(relabelled)).detail).toBe('JWS signature invalid.');
  });

  test('a secret key is a programming error, not a problem of the request', () => {
    expect(() => verifyJws(parseJws(request('ES256')), crypto.createSecretKey(Buffer.alloc(32)))).toThrow(TypeError);
  });
});

describe('parseJws', () => {
  const withHeader = (fields: Body): Body => ({ protected: b64u(JSON.stringify(fields)), payload: '', signature: 'AAAA' });
  const ok = { alg: 'ES256', ...jwkHeader(KEYS['P-256']) };
  const rsa1024 = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });

  test.each([
    ['alg none', { ...ok, alg: 'none' }, 'badSignatureAlgorithm'],
    ['alg HS256', { ...ok, alg: 'HS256' }, 'badSignatureAlgorithm'],
    ['an unknown alg', { ...ok, alg: 'ES256K' }, 'badSignatureAlgorithm'],
    ['no alg', { ...ok, alg: undefined }, 'malformed'],
    ['an alg that is not a string', { ...ok, alg: ['ES256'] }, 'malformed'],
    ['a jwk with d', { ...ok, jwk: KEYS['P-256'].privateKey.export({ format: 'jwk' }) }, 'badPublicKey'],
    ['an RSA 1024 jwk', { ...ok, jwk: rsa1024 }, 'badPublicKey'],
    ['a jwk that is not an object', { ...ok, jwk: 'key' }, 'malformed'],
    ['neither jwk nor kid', { ...ok, jwk: undefined }, 'malformed'],
    ['an empty kid', { ...ok, jwk: undefined, kid: '' }, 'malformed'],
    ['no nonce', { ...ok, nonce: undefined }, 'badNonce'],
    ['a nonce that is not base64url', { ...ok, nonce: 'abc+/==' }, 'malformed'],
    ['a nonce that is not a string', { ...ok, nonce: 12 }, 'malformed'],
    ['no url', { ...ok, url: undefined }, 'malformed'],
    ['a url that is not a string', { ...ok, url: { href: URL } }, 'malformed'],
    ['a crit extension', { ...ok, crit: ['exp'], exp: 1 }, 'malformed'],
    ['the unencoded payload option', { ...ok, b64: false }, 'malformed'],
  ])('refuses a protected header with %s', (_what, fields, type) => {
    const problem = problemOf(() => parseJws(withHeader(fields)));
    expect(problem.type).toBe(type);
    if (type === 'badSignatureAlgorithm') expect(problem.body().algorithms).toEqual([...SUPPORTED_ALGORITHMS]);
  });

  test('refuses both jwk and kid', () => {
    const problem = problemOf(() => parseJws(withHeader({ ...ok, kid: 'https://ca.example/acme/acct/1' })));
    expect(problem.body()).toEqual({
      type: 'urn:ietf:params:acme:error:malformed',
      status: 400,
      detail: 'jwk and kid are mutually exclusive.',
    });
  });

  const valid = request('ES256') as Record<string, string>;
  test.each([
    ['an unprotected header', { ...valid, header: { kid: 'x' } }],
    ['a signatures array', { payload: valid.payload, signatures: [{ protected: valid.protected, signature: valid.signature }] }],
    ['an unknown member', { ...valid, extra: 1 }],
    ['no payload (detached)', { protected: valid.protected, signature: valid.signature }],
    ['no protected header', { payload: valid.payload, signature: valid.signature }],
    ['a payload that is not a string', { ...valid, payload: { identifiers: [] } }],
    ['padding in protected', { ...valid, protected: `${valid.protected}=` }],
    ['padding in payload', { ...valid, payload: `${valid.payload}==` }],
    ['padding in signature', { ...valid, signature: `${valid.signature}=` }],
    ['the base64 alphabet', { ...valid, signature: `${valid.signature.slice(0, -4)}+/+/` }],
    ['an empty protected header', { ...valid, protected: '' }],
    ['a protected header that is not JSON', { ...valid, protected: b64u('{"alg":') }],
    ['a protected header that is not UTF-8', { ...valid, protected: b64u(Buffer.from([0x7b, 0xff, 0x7d])) }],
    ['a protected header that is an array', { ...valid, protected: b64u('[{"alg":"ES256"}]') }],
    ['a protected header that is null', { ...valid, protected: b64u('null') }],
    ['a payload that is not JSON', { ...valid, payload: b64u('Payload') }],
    ['a payload nested too deep', { ...valid, payload: b64u(`${'['.repeat(MAX_PAYLOAD_DEPTH + 1)}${']'.repeat(MAX_PAYLOAD_DEPTH + 1)}`) }],
    ['a protected header over 8 KiB', request('ES256', { url: `${URL}?${'a'.repeat(9000)}` })],
    ['a JWS over 64 KiB', request('ES256', {}, { csr: 'A'.repeat(MAX_JWS_BYTES) })],
  ])('refuses a body with %s as malformed', (_what, body) => {
    expect(problemOf(() => parseJws(body)).type).toBe('malformed');
  });

  const notJws = [
    null,
    undefined,
    42,
    true,
    [valid],
    'not JSON',
    '[]',
    Buffer.from('{"protected":'),
    `{"a":"${'b'.repeat(MAX_JWS_BYTES)}"}`,
  ];
  test.each(notJws.map((body) => [body]))('refuses the body %p as malformed', (body) => {
    expect(problemOf(() => parseJws(body)).type).toBe('malformed');
  });

  test('takes the raw body as JSON text or bytes too; keeps what it was given', () => {
    for (const body of [JSON.stringify(valid), Buffer.from(JSON.stringify(valid))]) expect(() => verified(body)).not.toThrow();
    const parsed = parseJws(valid);
    expect(parsed.encoded).toEqual(valid);
    expect(parsed.signingInput.toString()).toBe(`${valid.protected}.${valid.payload}`);
    expect(parsed.header).toMatchObject({ alg: 'ES256', nonce: NONCE, url: URL });
  });

  test(`accepts a payload ${MAX_PAYLOAD_DEPTH} levels deep and a protected header near the limit`, () => {
    const deep = JSON.parse(`${'['.repeat(MAX_PAYLOAD_DEPTH)}${']'.repeat(MAX_PAYLOAD_DEPTH)}`) as unknown;
    expect(() => verified(request('ES256', { url: `${URL}?${'a'.repeat(7000)}` }, deep))).not.toThrow();
  });
});

describe('AcmeProblem', () => {
  test('is an RFC 7807 problem document with the ACME URN (RFC 8555 §6.7), subproblems included', () => {
    const problem = new AcmeProblem('rejectedIdentifier', 400, 'Some identifiers were refused.', {
      subproblems: [{ type: 'caa', detail: 'CAA forbids', identifier: { type: 'dns', value: 'a.example' } }],
    });
    expect(JSON.parse(JSON.stringify(problem))).toEqual({
      type: 'urn:ietf:params:acme:error:rejectedIdentifier',
      status: 400,
      detail: 'Some identifiers were refused.',
      subproblems: [{ type: 'urn:ietf:params:acme:error:caa', detail: 'CAA forbids', identifier: { type: 'dns', value: 'a.example' } }],
    });
    expect(problem).toBeInstanceOf(Error);
  });
});

describe('parseJws and verifyJws under a seeded fuzz', () => {
  /** Parses and verifies `body`: true when accepted, false when refused with an AcmeProblem. */
  function onlyProblems(body: unknown): boolean {
    let parsed;
    try {
      parsed = parseJws(body);
      verifyJws(parsed, parsed.signer.kind === 'jwk' ? parsed.signer.key : KEYS.Ed25519.publicKey);
    } catch (e) {
      if (e instanceof AcmeProblem) return false;
      throw e;
    }
    // Accepted: then a key of another kind must be refused, with a problem too.
    const wrong = parsed.alg === 'EdDSA' ? KEYS['P-256'] : KEYS.Ed25519;
    expect(problemOf(() => verifyJws(parsed, wrong.publicKey)).type).toBe('badSignatureAlgorithm');
    return true;
  }
  /** Counts of accepted and refused bodies over `numRuns` draws of `arb`. */
  function run(arb: fc.Arbitrary<unknown>, seed: number, numRuns: number): { accepted: number; refused: number } {
    const outcomes = { accepted: 0, refused: 0 };
    const count = (body: unknown): void => void outcomes[onlyProblems(body) ? 'accepted' : 'refused']++;
    fc.assert(fc.property(arb, count), { seed, numRuns });
    return outcomes;
  }

  test('random values, JSON text and JWS-shaped objects', () => {
    const text = fc.oneof(fc.string(), fc.base64String(), fc.constant(''));
    const shaped = fc.record({ protected: text, payload: text, signature: text }, { requiredKeys: [] });
    run(fc.oneof(fc.anything(), fc.json(), shaped), 8555, 1500);
  });

  const VALID = SUPPORTED_ALGORITHMS.map((alg) => request(alg) as Record<string, string>);
  const CHARS = [...'AZaz09-_', '=', '+', '/', ' ', '.', '\u00e9', '\0'];

  test('valid JWSs with their members mutated', () => {
    const mutated = fc
      .tuple(fc.constantFrom(...VALID), fc.constantFrom(...MEMBERS), fc.nat(), fc.constantFrom(...CHARS), fc.nat(3))
      .map(([body, name, at, c, op]) => {
        const s = body[name];
        const i = s.length === 0 ? 0 : at % s.length;
        const edits = [s.slice(0, i) + c + s.slice(i + 1), s.slice(0, i) + c + s.slice(i), s.slice(0, i) + s.slice(i + 1), s.slice(0, i)];
        return { ...body, [name]: edits[op] };
      });
    run(mutated, 7515, 1500);
  });

  test('protected headers with members replaced by random values', () => {
    const names = fc.constantFrom('alg', 'jwk', 'kid', 'nonce', 'url', 'crit', 'b64', '__proto__');
    const edit = fc.tuple(names, fc.option(fc.anything(), { nil: undefined }));
    const header = fc.tuple(fc.constantFrom(...SUPPORTED_ALGORITHMS), fc.array(edit, { maxLength: 3 })).map(([alg, edits]) => {
      const fields: Body = { alg, ...jwkHeader(keyOf(alg)) };
      // defineProperty: also an own "__proto__" member, as JSON.parse makes one; undefined removes one.
      for (const [name, value] of edits) {
        Object.defineProperty(fields, name, { value, enumerable: value !== undefined, configurable: true, writable: true });
      }
      return jws(alg, keyOf(alg).privateKey, fields);
    });
    const outcomes = run(header, 8037, 1500);
    // Both sides seen: the fuzz reaches the verifier, not only the first check.
    expect(outcomes.accepted).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});
