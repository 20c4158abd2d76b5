import { inhibitAnyPolicyCodec as codec } from '../../../lib/x509/extensions/inhibit-any-policy';
import { X509Error } from '../../../lib/x509/errors';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

describe('inhibit_any_policy codec', () => {
  test.each([0, 1, 128, 70000])('%d matches openssl both ways', (n) => {
    const ext = opensslExtension('2.5.29.54', [`inhibitAnyPolicy = critical, ${n}`]);
    expect(codec.decode(ext.extnValue)).toBe(n);
    expect(codec.encode(codec.parse(n)).equals(ext.extnValue)).toBe(true);
  });

  test('parse and decode refuse negative numbers', () => {
    expect(issuesOf(() => codec.parse(-1))[0].type).toBe('greater_than_equal');
    expect(issuesOf(() => codec.parse('1'))[0].type).toBe('int_type');
    expect(() => codec.decode(Buffer.from('0201ff', 'hex'))).toThrow(X509Error);
  });
});
