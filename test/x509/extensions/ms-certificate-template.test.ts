import { msCertificateTemplateCodec as codec } from '../../../lib/x509/extensions/ms-certificate-template';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

const OID = '1.3.6.1.4.1.311.21.7';

describe('ms_certificate_template codec', () => {
  test.each([
    [['id = OID:1.2.3.4', 'major = INTEGER:100', 'minor = INTEGER:3'], { template_id: '1.2.3.4', major_version: 100, minor_version: 3 }],
    [
      ['id = OID:1.3.6.1.4.1.311.21.8.1', 'major = INTEGER:1'],
      { template_id: '1.3.6.1.4.1.311.21.8.1', major_version: 1, minor_version: null },
    ],
    [['id = OID:2.999'], { template_id: '2.999', major_version: null, minor_version: null }],
  ])('%j matches openssl (generic ASN1 encoder) both ways', (fields, value) => {
    const ext = opensslExtension(OID, [`${OID} = ASN1:SEQUENCE:tmpl`], ['[tmpl]', ...fields]);
    expect(codec.decode(ext.extnValue)).toEqual(value);
    expect(codec.encode(codec.parse(value)).equals(ext.extnValue)).toBe(true);
  });

  test('critical has no default; versions default to null', () => {
    expect(codec.defaultCritical).toBeNull();
    expect(codec.parse({ template_id: '1.2.3' })).toEqual({ template_id: '1.2.3', major_version: null, minor_version: null });
  });

  test('parse errors', () => {
    expect(issuesOf(() => codec.parse({ template_id: 'x' }))).toEqual([
      { type: 'value_error', loc: ['template_id'], msg: 'x: Invalid object identifier' },
    ]);
    expect(issuesOf(() => codec.parse({}))[0]).toEqual({ type: 'missing', loc: ['template_id'], msg: 'Field required' });
    // Untagged OPTIONAL INTEGERs: a lone minor version would be read back as the major version.
    expect(issuesOf(() => codec.parse({ template_id: '1.2.3', minor_version: 1 }))[0].msg).toMatch(/major_version/);
  });
});
