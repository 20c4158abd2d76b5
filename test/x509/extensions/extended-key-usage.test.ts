import { extendedKeyUsageCodec as codec } from '../../../lib/x509/extensions/extended-key-usage';
import { X509Error } from '../../../lib/x509/errors';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

describe('extended_key_usage codec', () => {
  test('matches openssl both ways, names in, dotted out, order kept', () => {
    const ext = opensslExtension('2.5.29.37', ['extendedKeyUsage = clientAuth, serverAuth, 1.2.3.4, OCSPSigning']);
    const dotted = ['1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.1', '1.2.3.4', '1.3.6.1.5.5.7.3.9'];
    expect(codec.decode(ext.extnValue)).toEqual(dotted);
    const parsed = codec.parse(['clientAuth', 'serverAuth', '1.2.3.4', 'OCSPSigning']);
    expect(parsed).toEqual(dotted);
    expect(codec.encode(parsed).equals(ext.extnValue)).toBe(true);
  });

  test('parse errors', () => {
    expect(issuesOf(() => codec.parse([]))[0].msg).toBe('value must not be empty');
    expect(issuesOf(() => codec.parse(['serverAuth', '1.3.6.1.5.5.7.3.1']))[0].msg).toBe('1.3.6.1.5.5.7.3.1: value must be unique');
    expect(issuesOf(() => codec.parse(['serverAuth', 'nope']))).toEqual([
      { type: 'value_error', loc: [1], msg: 'nope: Invalid object identifier' },
    ]);
    expect(issuesOf(() => codec.parse(['3.1']))[0].msg).toBe('3.1: Invalid object identifier');
  });

  test('an empty SEQUENCE is not a valid value', () => {
    expect(() => codec.decode(Buffer.from('3000', 'hex'))).toThrow(X509Error);
  });
});
