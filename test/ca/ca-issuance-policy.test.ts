/**
 * A CA's own issuance policy (docs/guides/issuance-policy.md; lib/ca/policy/ca-keys.ts, ca-names.ts,
 * ca-policy-settings.ts): the keys it narrows to, the names it allows and denies — each subjectAltName
 * and a common name that is a host name or address — and the settings checked before they are stored.
 * That every way in applies it alike is test/issuance/parity.test.ts's.
 */
import { describeKeyKinds, isKeyOfKinds, keyKinds } from '../../lib/ca/policy/ca-keys';
import { issuancePolicyInWords, patchedIssuancePolicy, sameIssuancePolicy } from '../../lib/ca/policy/ca-policy-settings';
import { issuancePolicyIssues, requestedNameIssues, type IssuanceSubject } from '../../lib/ca/policy/check';
import type { PolicyContext } from '../../lib/ca/policy/context';
import { CaError } from '../../lib/ca/errors';
import type { CaIssuancePolicy } from '../../lib/ports';
import { spki } from '../helpers/public-keys';
import type { GeneralName, Name } from '../../lib/x509/types';

const CN = '2.5.4.3';

const KEYS = {
  rsa2048: spki('rsa', 2048),
  rsa3072: spki('rsa', 3072),
  rsa1024: spki('rsa', 1024),
  p192: spki('ec', 'prime192v1'),
  p256: spki('ec', 'prime256v1'),
  p384: spki('ec', 'secp384r1'),
  p521: spki('ec', 'secp521r1'),
  ed25519: spki('ed25519'),
  ed448: spki('ed448'),
};

const LABELS = { keys: '--issuance-keys', allow: '--issuance-allow', deny: '--issuance-deny' };

function contextOf(policy: CaIssuancePolicy | null): PolicyContext {
  return { own: policy && { ca: 'Narrow', policy }, constraints: [], caKeys: new Map() };
}

function request(o: { subject?: Name; names?: GeneralName[]; key?: IssuanceSubject['publicKey'] }): IssuanceSubject {
  return {
    subject: o.subject ?? [{ oid: CN, value: 'Device one' }],
    names: (o.names ?? []).map((name, i) => ({ name, loc: ['extensions', 0, 'value', i] })),
    publicKey: o.key ?? KEYS.p384,
  };
}

describe('keys narrowed per CA', () => {
  test('the kinds are checked and made canonical: RSA first, the others in a fixed order, no repeats', () => {
    expect(keyKinds(['p-384', 'RSA', 'ed25519', 'P-384'], '--issuance-keys')).toEqual(['RSA-2048', 'P-384', 'Ed25519']);
    expect(keyKinds([' Ed448 ', 'rsa-3072'], 'x')).toEqual(['RSA-3072', 'Ed448']);
  });

  test('a kind outside the built-in set cannot be written: RSA < 2048, P-192, DSA, two RSA sizes, none at all', () => {
    expect(() => keyKinds(['RSA-1024'], '--issuance-keys')).toThrow(/--issuance-keys "RSA-1024": RSA keys of fewer than 2048 bits/);
    expect(() => keyKinds(['P-192'], '--issuance-keys')).toThrow(/"P-192": not a key kind/);
    expect(() => keyKinds(['DSA'], '--issuance-keys')).toThrow(CaError);
    expect(() => keyKinds(['RSA-2048', 'RSA-4096'], 'k')).toThrow(/one RSA size/);
    expect(() => keyKinds([], 'k')).toThrow(/at least one key kind/);
  });

  test('a key is accepted when it is of one of the kinds', () => {
    expect(isKeyOfKinds(['RSA-3072'], KEYS.rsa3072)).toBe(true);
    expect(isKeyOfKinds(['RSA-3072'], KEYS.rsa2048)).toBe(false);
    expect(isKeyOfKinds(['P-256', 'P-384'], KEYS.p384)).toBe(true);
    expect(isKeyOfKinds(['P-256', 'P-384'], KEYS.p521)).toBe(false);
    expect(isKeyOfKinds(['Ed25519'], KEYS.ed448)).toBe(false);
    expect(describeKeyKinds(['RSA-3072', 'P-384', 'Ed25519'])).toBe('RSA ≥ 3072 bits, EC P-384, Ed25519');
  });

  test('the check refuses a key the CA does not accept, naming the CA and what it accepts; the built-in refusal comes first', () => {
    const context = contextOf({ keys: ['RSA-3072', 'P-384'], allow: [], deny: [] });
    for (const key of [KEYS.rsa3072, KEYS.p384]) expect(issuancePolicyIssues(request({ key }), context)).toEqual([]);
    for (const key of [KEYS.rsa2048, KEYS.p256, KEYS.p521, KEYS.ed25519, KEYS.ed448]) {
      const [issue] = issuancePolicyIssues(request({ key }), context);
      expect(issue).toMatchObject({ rule: 'key', loc: ['csr'] });
      expect(issue.msg).toMatch(/^The CSR's public key is not accepted by the issuance policy of certificate authority Narrow: /);
      expect(issue.msg).toContain('(accepted: RSA ≥ 3072 bits, EC P-384)');
    }
    // Whatever is stored, the built-in set stays the outer bound.
    const stored = contextOf({ keys: ['RSA-1024', 'P-192'], allow: [], deny: [] });
    for (const key of [KEYS.rsa1024, KEYS.p192]) {
      expect(issuancePolicyIssues(request({ key }), stored)[0].msg).toMatch(/^The CSR's public key is not accepted: /);
    }
  });

  test('without a policy of its own, a CA accepts the built-in set', () => {
    for (const key of [KEYS.rsa2048, KEYS.p256, KEYS.p384, KEYS.p521, KEYS.ed25519, KEYS.ed448]) {
      expect(issuancePolicyIssues(request({ key }), contextOf(null))).toEqual([]);
    }
  });
});

describe('names allowed and denied per CA', () => {
  const context = contextOf({
    keys: null,
    allow: ['corp.example', '10.0.0.0/8', '2001:db8::/32'],
    deny: ['blocked.corp.example', '10.9.0.0/16'],
  });
  const issues = (names: GeneralName[], subject?: Name) => issuancePolicyIssues(request({ names, subject }), context);

  test('names under an allowed suffix or network pass: the suffix itself, names under it, a wildcard, an address', () => {
    const names: GeneralName[] = [
      { type: 'DNS', value: 'corp.example' },
      { type: 'DNS', value: 'WWW.Corp.Example.' },
      { type: 'DNS', value: '*.corp.example' },
      { type: 'IP', value: '10.1.2.3' },
      { type: 'IP', value: '2001:db8::1' },
    ];
    expect(issues(names)).toEqual([]);
  });

  test('a denied name is refused at its place, naming the deny entry, even under an allowed one', () => {
    const found = issues([
      { type: 'DNS', value: 'ok.corp.example' },
      { type: 'DNS', value: 'x.blocked.corp.example' },
      { type: 'IP', value: '10.9.1.1' },
    ]);
    expect(found).toEqual([
      expect.objectContaining({ rule: 'ca-names', loc: ['extensions', 0, 'value', 1] }),
      expect.objectContaining({ rule: 'ca-names', loc: ['extensions', 0, 'value', 2] }),
    ]);
    expect(found[0].msg).toBe(
      'DNS:x.blocked.corp.example: denied by the issuance policy of certificate authority Narrow (deny blocked.corp.example).',
    );
    expect(found[1].msg).toContain('(deny 10.9.0.0/16)');
  });

  test('with an allow list, a name under none is refused naming the allowed entries; a name of another type too', () => {
    const found = issues([
      { type: 'DNS', value: 'corp.example.org' },
      { type: 'DNS', value: 'notcorp.example' },
      { type: 'IP', value: '192.0.2.1' },
      { type: 'email', value: 'a@corp.example' },
    ]);
    expect(found.map((i) => i.rule)).toEqual(['ca-names', 'ca-names', 'ca-names', 'ca-names']);
    expect(found[0].msg).toBe(
      'DNS:corp.example.org: not among the names the issuance policy of certificate authority Narrow allows (allow corp.example, 10.0.0.0/8, 2001:db8::/32).',
    );
    expect(found[3].msg).toMatch(/email:a@corp\.example: not allowed .* DNS names and IP addresses only/);
  });

  test('a deny list alone refuses only what it covers', () => {
    const denyOnly = contextOf({ keys: null, allow: [], deny: ['blocked.example'] });
    const names = (n: GeneralName[]) => issuancePolicyIssues(request({ names: n }), denyOnly).map((i) => i.rule);
    expect(
      names([
        { type: 'DNS', value: 'www.example' },
        { type: 'email', value: 'a@blocked.example' },
      ]),
    ).toEqual([]);
    expect(names([{ type: 'DNS', value: 'a.blocked.example' }])).toEqual(['ca-names']);
  });

  test('a common name that is a host name or address is a requested name; another common name is not', () => {
    expect(issues([], [{ oid: CN, value: 'www.example.org' }])).toEqual([
      expect.objectContaining({ rule: 'ca-names', loc: ['subject', 0] }),
    ]);
    expect(issues([], [{ oid: CN, value: '10.9.0.1' }])[0].msg).toContain('deny 10.9.0.0/16');
    expect(issues([], [{ oid: CN, value: 'www.corp.example' }])).toEqual([]);
    expect(issues([], [{ oid: CN, value: 'Device one' }])).toEqual([]);
  });

  test("an ACME order's identifiers (names alone) meet the same lists", () => {
    const names = [{ name: { type: 'DNS', value: 'www.example.org' } as GeneralName, loc: [0] }];
    expect(requestedNameIssues(names, context)).toEqual([expect.objectContaining({ rule: 'ca-names', loc: [0] })]);
  });

  test('an allow list of many entries is named in part', () => {
    const many = contextOf({
      keys: null,
      allow: ['a.example', 'b.example', 'c.example', 'd.example', 'e.example', 'f.example', 'g.example'],
      deny: [],
    });
    const [issue] = issuancePolicyIssues(request({ names: [{ type: 'DNS', value: 'z.test' }] }), many);
    expect(issue.msg).toContain('(allow a.example, b.example, c.example, d.example, e.example and 2 more)');
  });
});

describe('the settings', () => {
  test('a patch replaces the parts it gives, checked and canonical; a policy that narrows nothing is null', () => {
    const set = patchedIssuancePolicy(null, { keys: ['p-384'], deny: ['Blocked.Example.'] }, LABELS);
    expect(set).toEqual({ keys: ['P-384'], allow: [], deny: ['blocked.example'] });
    expect(patchedIssuancePolicy(set, { allow: ['10.0.0.0/8'] }, LABELS)).toEqual({
      keys: ['P-384'],
      allow: ['10.0.0.0/8'],
      deny: ['blocked.example'],
    });
    expect(patchedIssuancePolicy(set, { keys: null, deny: [] }, LABELS)).toBeNull();
    expect(sameIssuancePolicy(null, { keys: null, allow: [], deny: [] })).toBe(true);
    expect(sameIssuancePolicy(set, null)).toBe(false);
  });

  test('a bad entry is an error naming the option, before anything is returned', () => {
    expect(() => patchedIssuancePolicy(null, { keys: ['P-192'] }, LABELS)).toThrow(/^--issuance-keys "P-192": not a key kind/);
    expect(() => patchedIssuancePolicy(null, { allow: ['*.corp.example'] }, LABELS)).toThrow(
      /^--issuance-allow "\*\.corp\.example": not a DNS suffix/,
    );
    expect(() => patchedIssuancePolicy(null, { deny: ['10.0.0.1/8'] }, LABELS)).toThrow(
      /^--issuance-deny "10\.0\.0\.1\/8": not an IP address or network/,
    );
  });

  test('in words: the parts set, "defaults" for the others', () => {
    expect(issuancePolicyInWords(null)).toEqual({
      keys: 'RSA ≥ 2048 bits, EC P-256/P-384/P-521, Ed25519 or Ed448 (defaults)',
      allow: 'any name (defaults)',
      deny: 'none (defaults)',
    });
    expect(issuancePolicyInWords({ keys: ['P-384'], allow: ['corp.example'], deny: [] })).toEqual({
      keys: 'EC P-384',
      allow: 'corp.example',
      deny: 'none (defaults)',
    });
  });
});
