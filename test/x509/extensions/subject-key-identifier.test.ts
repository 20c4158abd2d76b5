import { subjectKeyIdentifierCodec as codec } from '../../../lib/x509/extensions/subject-key-identifier';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

describe('subject_key_identifier codec', () => {
  test('matches openssl both ways', () => {
    const hex = '0123456789ABCDEF0123456789ABCDEF01234567';
    const ext = opensslExtension('2.5.29.14', [`subjectKeyIdentifier = ${hex}`]);
    const b64 = Buffer.from(hex, 'hex').toString('base64');
    expect(codec.decode(ext.extnValue)).toBe(b64);
    expect(codec.encode(codec.parse(b64)).equals(ext.extnValue)).toBe(true);
    expect(codec.requiredCritical).toBe(false);
  });

  test('parse rejects what is not base64', () => {
    expect(issuesOf(() => codec.parse('not base64!'))[0].msg).toBe('not base64!: Not a valid base64 string');
    expect(issuesOf(() => codec.parse(5))[0].type).toBe('string_type');
  });
});
