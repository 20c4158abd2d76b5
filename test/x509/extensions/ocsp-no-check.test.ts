import { ocspNoCheckCodec } from '../../../lib/x509/extensions/ocsp-no-check';
import { precertPoisonCodec } from '../../../lib/x509/extensions/precert-poison';
import { X509Error } from '../../../lib/x509/errors';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

describe('ocsp_no_check codec', () => {
  test('matches openssl both ways', () => {
    const ext = opensslExtension('1.3.6.1.5.5.7.48.1.5', ['noCheck = ignored']);
    expect(ocspNoCheckCodec.decode(ext.extnValue)).toBeNull();
    expect(ocspNoCheckCodec.encode(ocspNoCheckCodec.parse(undefined)).equals(ext.extnValue)).toBe(true);
  });

  test('value may be omitted or null, nothing else', () => {
    expect(ocspNoCheckCodec.parse(null)).toBeNull();
    expect(issuesOf(() => ocspNoCheckCodec.parse({}))[0].type).toBe('none_required');
    expect(() => ocspNoCheckCodec.decode(Buffer.from('0101ff', 'hex'))).toThrow(X509Error);
  });
});

describe('precert_poison codec', () => {
  test('matches openssl both ways and must be critical', () => {
    const ext = opensslExtension('1.3.6.1.4.1.11129.2.4.3', ['1.3.6.1.4.1.11129.2.4.3 = critical, ASN1:NULL']);
    expect(precertPoisonCodec.decode(ext.extnValue)).toBeNull();
    expect(precertPoisonCodec.encode(precertPoisonCodec.parse(null)).equals(ext.extnValue)).toBe(true);
    expect(precertPoisonCodec.requiredCritical).toBe(true);
  });
});
