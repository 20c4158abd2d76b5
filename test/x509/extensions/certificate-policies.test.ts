import { certificatePoliciesCodec as codec } from '../../../lib/x509/extensions/certificate-policies';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

const OID = '2.5.29.32';

describe('certificate_policies codec', () => {
  test('CPS URIs and bare policies match openssl both ways', () => {
    const ext = opensslExtension(
      OID,
      ['certificatePolicies = 2.23.140.1.2.1, @pol'],
      ['[pol]', 'policyIdentifier = 1.3.6.1.4.1.44947.1.1.1', 'CPS.1 = http://cps.example.org', 'CPS.2 = https://cps2.example.org/x'],
    );
    const value = [
      { policy_identifier: '2.23.140.1.2.1', policy_qualifiers: null },
      { policy_identifier: '1.3.6.1.4.1.44947.1.1.1', policy_qualifiers: ['http://cps.example.org', 'https://cps2.example.org/x'] },
    ];
    expect(codec.decode(ext.extnValue)).toEqual(value);
    expect(codec.encode(codec.parse(value)).equals(ext.extnValue)).toBe(true);
  });

  test('a UserNotice written by openssl decodes; with UTF8 text it re-encodes exactly', () => {
    const ext = opensslExtension(
      OID,
      ['certificatePolicies = ia5org, @pol'],
      [
        '[pol]',
        'policyIdentifier = 1.2.3.4',
        'CPS.1 = http://cps.example.org',
        'userNotice.1 = @notice',
        '[notice]',
        'explicitText = "UTF8:Explicit text"',
        'organization = "Example Org"',
        'noticeNumbers = 1, 2, 300',
      ],
    );
    const value = [
      {
        policy_identifier: '1.2.3.4',
        policy_qualifiers: [
          'http://cps.example.org',
          { notice_reference: { organization: 'Example Org', notice_numbers: [1, 2, 300] }, explicit_text: 'Explicit text' },
        ],
      },
    ];
    expect(codec.decode(ext.extnValue)).toEqual(value);
    // openssl writes the organization as IA5String (ia5org); we write UTF8String (as cryptography does),
    // so compare the bytes with the organization's tag adjusted.
    const ours = codec.encode(codec.parse(value));
    const org = Buffer.from('Example Org');
    const theirs = Buffer.from(ext.extnValue);
    const at = theirs.indexOf(org) - 2;
    expect(theirs[at]).toBe(0x16); // IA5String
    theirs[at] = 0x0c; // UTF8String
    expect(ours.equals(theirs)).toBe(true);
  });

  test('explicit text in other DisplayText types is read', () => {
    const visible = opensslExtension(
      OID,
      ['certificatePolicies = @pol'],
      ['[pol]', 'policyIdentifier = 1.2.3.4', 'userNotice.1 = @notice', '[notice]', 'explicitText = "VISIBLE:Hello"'],
    );
    expect(codec.decode(visible.extnValue)[0].policy_qualifiers).toEqual([{ notice_reference: null, explicit_text: 'Hello' }]);
    // openssl's v3 config writes broken BMPStrings, so build this one with its generic ASN.1 encoder.
    const bmp = opensslExtension(
      OID,
      [`${OID} = ASN1:SEQUENCE:cps`],
      [
        '[cps]',
        'p = SEQUENCE:pi',
        '[pi]',
        'id = OID:1.2.3.4',
        'q = SEQUENCE:quals',
        '[quals]',
        'q = SEQUENCE:qinfo',
        '[qinfo]',
        'id = OID:1.3.6.1.5.5.7.2.2',
        'n = SEQUENCE:notice',
        '[notice]',
        't = FORMAT:UTF8,BMPSTRING:Grüße',
      ],
    );
    expect(codec.decode(bmp.extnValue)[0].policy_qualifiers).toEqual([{ notice_reference: null, explicit_text: 'Grüße' }]);
  });

  test('parse errors', () => {
    expect(issuesOf(() => codec.parse([]))[0].msg).toBe('value must not be empty');
    expect(issuesOf(() => codec.parse([{ policy_identifier: 'x' }]))).toEqual([
      { type: 'value_error', loc: [0, 'policy_identifier'], msg: 'x: Invalid object identifier' },
    ]);
    expect(issuesOf(() => codec.parse([{ policy_identifier: '1.2.3', policy_qualifiers: [{}] }]))).toEqual([
      { type: 'missing', loc: [0, 'policy_qualifiers', 0, 'explicit_text'], msg: 'Field required' },
    ]);
    const noOrg = [{ policy_identifier: '1.2.3', policy_qualifiers: [{ notice_reference: { notice_numbers: [1] }, explicit_text: null }] }];
    expect(issuesOf(() => codec.parse(noOrg))[0].loc).toEqual([0, 'policy_qualifiers', 0, 'notice_reference', 'organization']);
    const dup = { policy_identifier: '1.2.3', policy_qualifiers: null };
    expect(issuesOf(() => codec.parse([dup, { policy_identifier: '1.2.3' }]))[0].msg).toMatch(/value must be unique$/);
  });
});
