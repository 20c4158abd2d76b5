import { privateKeyUsagePeriodCodec as codec } from '../../../lib/x509/extensions/private-key-usage-period';
import { X509Error } from '../../../lib/x509/errors';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

const OID = '2.5.29.16';

describe('private_key_usage_period codec', () => {
  test.each([
    [
      ['nb = IMPLICIT:0,GENTIME:20260101000000Z', 'na = IMPLICIT:1,GENTIME:20270615123456Z'],
      { not_before: '2026-01-01T00:00:00', not_after: '2027-06-15T12:34:56' },
    ],
    [['na = IMPLICIT:1,GENTIME:20991231235959Z'], { not_before: null, not_after: '2099-12-31T23:59:59' }],
    [['nb = IMPLICIT:0,GENTIME:19700101000000.5Z'], { not_before: '1970-01-01T00:00:00.500', not_after: null }],
  ])('%j matches openssl (generic ASN1 encoder) both ways, naive output', (fields, value) => {
    const ext = opensslExtension(OID, [`${OID} = ASN1:SEQUENCE:pkup`], ['[pkup]', ...fields]);
    expect(codec.decode(ext.extnValue)).toEqual(value);
    expect(codec.encode(codec.parse(value)).equals(ext.extnValue)).toBe(true);
  });

  test('parse converts aware input to naive UTC', () => {
    expect(codec.parse({ not_before: '2026-01-01T10:00:00+02:00', not_after: '2026-02-01T00:00:00Z' })).toEqual({
      not_before: '2026-01-01T08:00:00',
      not_after: '2026-02-01T00:00:00',
    });
  });

  test('parse errors', () => {
    expect(issuesOf(() => codec.parse({}))[0].msg).toBe('At least one of not_before and not_after must be set.');
    expect(issuesOf(() => codec.parse({ not_before: '2026-02-01T00:00:00', not_after: '2026-01-01T00:00:00' }))[0].msg).toBe(
      'not_after cannot be before not_before.',
    );
    expect(issuesOf(() => codec.parse({ not_before: 'tomorrow' }))[0]).toMatchObject({ loc: ['not_before'] });
  });

  test('decode rejects UTCTime and trailing fractional zeros (not DER)', () => {
    expect(() => codec.decode(Buffer.from('300f800d3236303130313030303030305a', 'hex'))).toThrow(X509Error);
    expect(() => codec.decode(Buffer.from('3013801132303236303130313030303030302e305a', 'hex'))).toThrow(X509Error);
  });
});
