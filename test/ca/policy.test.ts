/**
 * The CA's issuing policy (lib/ca/policy/check.ts; docs/guides/issuance-policy.md): each rule on its own,
 * with keys made by Node's crypto and read as the CSR parser reads them. That every way in applies it
 * alike is test/issuance/parity.test.ts's.
 */
import { issuancePolicyIssues, type IssuanceSubject } from '../../lib/ca/policy/check';
import type { PolicyContext } from '../../lib/ca/policy/context';
import { spki } from '../helpers/public-keys';
import type { GeneralName, Name } from '../../lib/x509/types';

const CN = '2.5.4.3';
const O = '2.5.4.10';

const p256 = spki('ec', 'prime256v1');
const caKey = spki('ec', 'prime256v1');

const context: PolicyContext = {
  own: null,
  constraints: [
    { ca: 'Issuing', constraints: { permitted_subtrees: [{ type: 'DNS', value: 'example.com' }], excluded_subtrees: null } },
    { ca: 'Root', constraints: { permitted_subtrees: null, excluded_subtrees: [{ type: 'DNS', value: 'secret.example.com' }] } },
  ],
  caKeys: new Map([[caKey.der.toString('base64'), 'Root']]),
};

function request(o: { subject?: Name; names?: GeneralName[]; key?: IssuanceSubject['publicKey'] }): IssuanceSubject {
  return {
    subject: o.subject ?? [{ oid: CN, value: 'www.example.com' }],
    names: (o.names ?? []).map((name, i) => ({ name, loc: ['extensions', 0, 'value', i] })),
    publicKey: o.key ?? p256,
  };
}

const rules = (r: IssuanceSubject) => issuancePolicyIssues(r, context).map((i) => i.rule);

describe('issuancePolicyIssues', () => {
  test('keys: RSA ≥ 2048, P-256/P-384/P-521, Ed25519 and Ed448 pass; RSA-1024, RSA-512 and P-192 are refused at `csr`', () => {
    for (const key of [spki('rsa', 2048), p256, spki('ec', 'secp384r1'), spki('ec', 'secp521r1'), spki('ed25519'), spki('ed448')]) {
      expect(rules(request({ key }))).toEqual([]);
    }
    for (const key of [spki('rsa', 1024), spki('rsa', 512), spki('ec', 'prime192v1')]) {
      const [issue] = issuancePolicyIssues(request({ key }), context);
      expect(issue).toMatchObject({ rule: 'key', loc: ['csr'] });
      expect(issue.msg).toMatch(/public key is not accepted/);
    }
  });

  test("a CA's key is never certified, and the message names the CA", () => {
    const [issue] = issuancePolicyIssues(request({ key: caKey }), context);
    expect(issue).toMatchObject({ rule: 'ca-key', loc: ['csr'] });
    expect(issue.msg).toContain('key of certificate authority Root');
  });

  test("names: each SAN and a CN that is a host name lie within every CA's constraints, the CA named", () => {
    expect(rules(request({ names: [{ type: 'DNS', value: 'a.example.com' }] }))).toEqual([]);
    const outside = issuancePolicyIssues(
      request({
        names: [
          { type: 'DNS', value: 'ok.example.com' },
          { type: 'DNS', value: 'evil.test' },
        ],
      }),
      context,
    );
    expect(outside).toEqual([expect.objectContaining({ rule: 'name-constraints', loc: ['extensions', 0, 'value', 1] })]);
    expect(outside[0].msg).toMatch(
      /evil\.test: outside the subtrees it permits: refused by the name constraints of certificate authority Issuing/,
    );
    // The root's exclusion applies under the issuing CA too.
    const excluded = issuancePolicyIssues(request({ names: [{ type: 'DNS', value: 'x.secret.example.com' }] }), context);
    expect(excluded[0].msg).toContain('certificate authority Root');
    // The CN is a host name: held to the constraints; a CN that is no name is not.
    expect(issuancePolicyIssues(request({ subject: [{ oid: CN, value: 'evil.test' }] }), context)).toEqual([
      expect.objectContaining({ rule: 'name-constraints', loc: ['subject', 0] }),
    ]);
    expect(rules(request({ subject: [{ oid: CN, value: 'Printer in room 4' }] }))).toEqual([]);
  });

  test('subject text: control characters in any attribute are refused; a CN that is an unusable name too', () => {
    for (const bad of ['a\u001bb', 'bell\u0007', 'del\u007f', 'c1\u0085']) {
      const [issue] = issuancePolicyIssues(
        request({
          subject: [
            { oid: O, value: bad },
            { oid: CN, value: 'www.example.com' },
          ],
        }),
        context,
      );
      expect(issue).toMatchObject({ rule: 'subject-text', loc: ['subject', 0] });
      expect(issue.msg).toMatch(/control character/);
      expect(issue.msg).not.toContain(bad); // never echoed
    }
    for (const cn of ['0.0.0.0', '255.255.255.255', 'localhost.example.com.', 'xn--a.example.com']) {
      const [issue] = issuancePolicyIssues(request({ subject: [{ oid: CN, value: cn }] }), context);
      expect(issue).toMatchObject({ rule: 'unusable-name', loc: ['subject', 0] });
      expect(issue.msg).toMatch(/cannot be in a certificate/);
    }
    expect(
      rules(
        request({
          subject: [
            { oid: O, value: 'Ünïcödé GmbH' },
            { oid: CN, value: 'www.example.com' },
          ],
        }),
      ),
    ).toEqual([]);
  });

  test('every issue at once, in request order', () => {
    expect(
      rules(request({ key: spki('rsa', 1024), subject: [{ oid: CN, value: 'evil.test' }], names: [{ type: 'DNS', value: 'other.test' }] })),
    ).toEqual(['key', 'name-constraints', 'name-constraints']);
  });
});
