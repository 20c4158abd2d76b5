import { policyConstraintsCodec as codec } from '../../../lib/x509/extensions/policy-constraints';
import { X509Error } from '../../../lib/x509/errors';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

describe('policy_constraints codec', () => {
  test.each([
    ['requireExplicitPolicy:1, inhibitPolicyMapping:2', { require_explicit_policy: 1, inhibit_policy_mapping: 2 }],
    ['requireExplicitPolicy:0', { require_explicit_policy: 0, inhibit_policy_mapping: null }],
    ['inhibitPolicyMapping:300', { require_explicit_policy: null, inhibit_policy_mapping: 300 }],
  ])('%s matches openssl both ways', (conf, value) => {
    const ext = opensslExtension('2.5.29.36', [`policyConstraints = critical, ${conf}`]);
    expect(codec.decode(ext.extnValue)).toEqual(value);
    expect(codec.encode(codec.parse(value)).equals(ext.extnValue)).toBe(true);
  });

  test('parse errors', () => {
    expect(issuesOf(() => codec.parse({ require_explicit_policy: null, inhibit_policy_mapping: null }))[0].msg).toBe(
      'At least one of require_explicit_policy and inhibit_policy_mapping must not be None',
    );
    expect(issuesOf(() => codec.parse({ require_explicit_policy: 1 }))).toEqual([
      { type: 'missing', loc: ['inhibit_policy_mapping'], msg: 'Field required' },
    ]);
  });

  test('decode rejects an empty or out-of-order value', () => {
    expect(() => codec.decode(Buffer.from('3000', 'hex'))).toThrow(X509Error);
    expect(() => codec.decode(Buffer.from('3006810101800101', 'hex'))).toThrow(X509Error);
  });
});
