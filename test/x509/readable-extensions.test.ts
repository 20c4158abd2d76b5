/**
 * The readable rendering of extensions (lib/x509/readable-extensions.ts):
 *  (a) every extension type, with the exact lines of typical, partial and empty values;
 *  (b) every extension of every corpus certificate renders, as parsed, without a hole in its text;
 *  (c) the renderer labels exactly the types of the registry (plus `unknown`).
 */
import { parseCertificate } from '../../lib/x509/certificate';
import { EXTENSION_CODECS } from '../../lib/x509/extensions';
import { EXTENDED_KEY_USAGE_ALIASES, EXTENSION_OIDS } from '../../lib/x509/oids';
import { EXTENSION_LABELS, readableExtension, readableExtensions } from '../../lib/x509/readable-extensions';
import { EXTENDED_KEY_USAGE_TEXT } from '../../lib/x509/readable/usages';
import type { Extension, ExtensionType } from '../../lib/x509/types';
import { loadCorpus } from '../helpers/corpus';

const ALL_TYPES: ExtensionType[] = [...EXTENSION_CODECS.map((c) => c.type), 'unknown'];

const uri = (value: string) => ({ type: 'URI' as const, value });
const dns = (value: string) => ({ type: 'DNS' as const, value });
const cn = (value: string) => ({ type: 'dirName' as const, value: [{ oid: '2.5.4.3', value }] });
const sct = (log_id: string, timestamp: string, entry_type: string) => ({ version: 'v1', log_id, timestamp, entry_type });

/** [type, what the case is, value, expected lines] */
const CASES: [ExtensionType, string, unknown, string[]][] = [
  [
    'key_usage',
    'in bit order',
    ['crl_sign', 'digital_signature', 'key_cert_sign'],
    ['Digital signature', 'Certificate signing', 'CRL signing'],
  ],
  [
    'key_usage',
    'every usage',
    ['content_commitment', 'data_encipherment', 'decipher_only', 'encipher_only', 'key_agreement', 'key_encipherment'],
    ['Content commitment (non-repudiation)', 'Key encipherment', 'Data encipherment', 'Key agreement', 'Encipher only', 'Decipher only'],
  ],
  ['key_usage', 'empty', [], ['(none)']],
  [
    'extended_key_usage',
    'known and unknown purposes',
    ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.9', '1.2.3.4'],
    ['TLS web server authentication (serverAuth)', 'TLS web client authentication (clientAuth)', 'OCSP signing (OCSPSigning)', '1.2.3.4'],
  ],
  ['basic_constraints', 'CA with a path length', { ca: true, path_length: 0 }, ['CA: yes, path length 0']],
  ['basic_constraints', 'CA without one', { ca: true, path_length: null }, ['CA: yes, path length unlimited']],
  ['basic_constraints', 'end entity', { ca: false, path_length: null }, ['CA: no']],
  [
    'subject_alternative_name',
    'every kind of name',
    [
      dns('example.com'),
      { type: 'IP', value: '192.0.2.1' },
      { type: 'IP', value: '2001:db8::1' },
      { type: 'email', value: 'user@example.com' },
      uri('https://example.com/'),
      { type: 'RID', value: '1.2.3.4' },
      {
        type: 'dirName',
        value: [
          { oid: '2.5.4.6', value: 'AT' },
          { oid: '2.5.4.3', value: 'a, b' },
        ],
      },
      { type: 'dirName', value: [] },
      { type: 'otherName', value: { oid: '1.3.6.1.4.1.311.20.2.3', type: 'UTF8String', value: 'user@example.com' } },
      { type: 'otherName', value: { oid: '1.2.3', type: 'BOOLEAN', value: true } },
      { type: 'otherName', value: { oid: '1.2.3', type: 'NULL', value: null } },
      { type: 'otherName', value: { oid: '1.2.3', type: 'INTEGER', value: 12345678901234567890n } },
    ],
    [
      'DNS: example.com',
      'IP: 192.0.2.1',
      'IP: 2001:db8::1',
      'email: user@example.com',
      'URI: https://example.com/',
      'RID: 1.2.3.4',
      'dirName: C=AT,CN=a\\, b',
      'dirName: (empty)',
      'otherName: 1.3.6.1.4.1.311.20.2.3 (UTF8String) user@example.com',
      'otherName: 1.2.3 (BOOLEAN) true',
      'otherName: 1.2.3 (NULL) null',
      'otherName: 1.2.3 (INTEGER) 12345678901234567890',
    ],
  ],
  ['subject_alternative_name', 'empty', [], ['(none)']],
  ['issuer_alternative_name', 'a URI', [uri('http://ian.example.com')], ['URI: http://ian.example.com']],
  [
    'authority_information_access',
    'OCSP, CA issuers and an unknown method',
    [
      { access_method: '1.3.6.1.5.5.7.48.1', access_location: uri('http://ocsp.example.com') },
      { access_method: '1.3.6.1.5.5.7.48.2', access_location: uri('http://example.com/ca.der') },
      { access_method: '1.2.3.4', access_location: dns('example.net') },
    ],
    ['OCSP: http://ocsp.example.com', 'CA issuers: http://example.com/ca.der', '1.2.3.4: DNS: example.net'],
  ],
  ['authority_information_access', 'empty', [], ['(none)']],
  [
    'subject_information_access',
    'CA repository and time stamping',
    [
      { access_method: '1.3.6.1.5.5.7.48.5', access_location: uri('http://example.com/repo/') },
      { access_method: '1.3.6.1.5.5.7.48.3', access_location: uri('http://tsa.example.com') },
    ],
    ['CA repository: http://example.com/repo/', 'Time stamping: http://tsa.example.com'],
  ],
  [
    'crl_distribution_points',
    'full names, and a point with every field',
    [
      { full_name: [uri('http://example.com/a.crl'), uri('ldap://example.com/a')], relative_name: null, crl_issuer: null, reasons: null },
      {
        full_name: null,
        relative_name: [{ oid: '2.5.4.3', value: 'rdn.example.com' }],
        crl_issuer: [cn('Issuer')],
        reasons: ['ca_compromise', 'key_compromise', 'aa_compromise'],
      },
    ],
    [
      'http://example.com/a.crl',
      'ldap://example.com/a',
      'Relative name: CN=rdn.example.com',
      'Reasons: CA compromise, key compromise, AA compromise',
      'CRL issuer: dirName: CN=Issuer',
    ],
  ],
  [
    'crl_distribution_points',
    'a point without fields',
    [{ full_name: null, relative_name: null, crl_issuer: null, reasons: null }],
    ['(none)'],
  ],
  [
    'freshest_crl',
    'a directory name',
    [{ full_name: [cn('delta')], relative_name: null, crl_issuer: null, reasons: ['superseded'] }],
    ['dirName: CN=delta', 'Reasons: superseded'],
  ],
  [
    'certificate_policies',
    'qualifiers of every kind',
    [
      {
        policy_identifier: '2.5.29.32.0',
        policy_qualifiers: [
          'https://example.com/cps',
          { notice_reference: { organization: 'Example', notice_numbers: [1, 2] }, explicit_text: 'Read this' },
          { notice_reference: { organization: null, notice_numbers: [] }, explicit_text: null },
          { notice_reference: null, explicit_text: null },
        ],
      },
      { policy_identifier: '2.23.140.1.2.1', policy_qualifiers: null },
      { policy_identifier: '1.2.3.4', policy_qualifiers: [] },
    ],
    [
      'Policy: 2.5.29.32.0 (anyPolicy)',
      'CPS: https://example.com/cps',
      'User notice: Read this',
      'Notice reference: Example, notice numbers 1, 2',
      'Notice reference: (no organization), notice numbers (none)',
      'User notice: (empty)',
      'Policy: 2.23.140.1.2.1 (domain validated)',
      'Policy: 1.2.3.4',
    ],
  ],
  [
    'name_constraints',
    'permitted and excluded',
    { permitted_subtrees: [dns('.example.com'), { type: 'IP', value: '10.0.0.0/8' }], excluded_subtrees: [cn('x')] },
    ['Permitted: DNS: .example.com', 'Permitted: IP: 10.0.0.0/8', 'Excluded: dirName: CN=x'],
  ],
  ['name_constraints', 'excluded only', { permitted_subtrees: null, excluded_subtrees: [dns('.mil')] }, ['Excluded: DNS: .mil']],
  ['name_constraints', 'neither', { permitted_subtrees: null, excluded_subtrees: [] }, ['(none)']],
  ['subject_key_identifier', 'bytes', 'AQID/w==', ['01:02:03:FF']],
  ['subject_key_identifier', 'empty', '', ['(empty)']],
  [
    'authority_key_identifier',
    'every field',
    { key_identifier: 'q80=', authority_cert_issuer: [cn('Root')], authority_cert_serial_number: 4660 },
    ['Key ID: AB:CD', 'Issuer: dirName: CN=Root', 'Serial: 12:34'],
  ],
  [
    'authority_key_identifier',
    'a large serial',
    { key_identifier: null, authority_cert_issuer: [uri('http://x')], authority_cert_serial_number: 2n ** 64n },
    ['Issuer: URI: http://x', 'Serial: 01:00:00:00:00:00:00:00:00'],
  ],
  [
    'authority_key_identifier',
    'nothing',
    { key_identifier: null, authority_cert_issuer: null, authority_cert_serial_number: null },
    ['(none)'],
  ],
  [
    'precertificate_signed_certificate_timestamps',
    'two SCTs',
    [sct('AAEC', '2018-03-14T14:23:09.403', 'precertificate'), sct('/w==', '2018-03-14T14:23:08', 'precertificate')],
    ['Log ID: 00:01:02, timestamp: 2018-03-14T14:23:09.403 UTC', 'Log ID: FF, timestamp: 2018-03-14T14:23:08 UTC'],
  ],
  [
    'signed_certificate_timestamps',
    'one SCT',
    [sct('AAEC', '2020-01-02T03:04:05', 'x509_certificate')],
    ['Log ID: 00:01:02, timestamp: 2020-01-02T03:04:05 UTC'],
  ],
  [
    'tls_feature',
    'both features',
    ['status_request', 'status_request_v2'],
    ['OCSP must-staple (status_request)', 'Multiple certificate status request (status_request_v2)'],
  ],
  ['ocsp_no_check', 'a NULL', null, []],
  ['precert_poison', 'a NULL', null, []],
  ['inhibit_any_policy', 'zero', 0, ['Skip certificates: 0']],
  [
    'policy_constraints',
    'both',
    { require_explicit_policy: 1, inhibit_policy_mapping: 2 },
    ['Require explicit policy: 1', 'Inhibit policy mapping: 2'],
  ],
  ['policy_constraints', 'one', { require_explicit_policy: null, inhibit_policy_mapping: 0 }, ['Inhibit policy mapping: 0']],
  [
    'private_key_usage_period',
    'both ends',
    { not_before: '2020-01-01T00:00:00', not_after: '2021-06-30T12:00:00.5' },
    ['Not before: 2020-01-01T00:00:00 UTC', 'Not after: 2021-06-30T12:00:00.5 UTC'],
  ],
  ['private_key_usage_period', 'neither', { not_before: null, not_after: null }, ['(none)']],
  [
    'ms_certificate_template',
    'with versions',
    { template_id: '1.3.6.1.4.1.311.21.8.1', major_version: 100, minor_version: 0 },
    ['Template: 1.3.6.1.4.1.311.21.8.1', 'Major version: 100', 'Minor version: 0'],
  ],
  ['ms_certificate_template', 'without', { template_id: '1.2.3', major_version: null, minor_version: null }, ['Template: 1.2.3']],
  [
    'admissions',
    'every field',
    {
      authority: uri('https://authority.example.com'),
      admissions: [
        {
          admission_authority: cn('Chamber'),
          naming_authority: { id: '1.2.3', url: 'https://na.example.com', text: 'Naming' },
          profession_infos: [
            {
              naming_authority: { id: null, url: null, text: null },
              profession_items: ['Lawyer', 'Notary'],
              profession_oids: ['1.2.3.5'],
              registration_number: 'R-1',
              add_profession_info: 'AQI=',
            },
            { naming_authority: null, profession_items: [], profession_oids: null, registration_number: null, add_profession_info: null },
          ],
        },
      ],
    },
    [
      'Authority: URI: https://authority.example.com',
      'Admission authority: dirName: CN=Chamber',
      'Naming authority: 1.2.3, https://na.example.com, Naming',
      'Profession: Lawyer, Notary; OIDs 1.2.3.5; registration number R-1; naming authority (empty); additional information 01:02',
      'Profession: (none)',
    ],
  ],
  ['admissions', 'empty', { authority: null, admissions: [] }, ['(none)']],
  ['unknown', 'an unknown OID', { oid: '1.2.3.4.5', value: 'BQA=' }, ['OID: 1.2.3.4.5', 'Value: 05:00']],
  ['unknown', 'no bytes', { oid: '1.2.3.4.5', value: '' }, ['OID: 1.2.3.4.5', 'Value: (empty)']],
];

describe('readable extensions', () => {
  test.each(CASES.map(([type, what, value, lines]) => [type, what, value, lines] as const))('%s: %s', (type, _what, value, lines) => {
    const readable = readableExtension({ type, critical: true, value });
    expect(readable.lines).toEqual(lines);
    expect(readable.type).toBe(type);
    expect(readable.critical).toBe(true);
    expect(readable.label).toBe(EXTENSION_LABELS[type]);
    expect(readable.oid).toBe(type === 'unknown' ? '1.2.3.4.5' : EXTENSION_OIDS[type]);
  });

  test('every type has a case', () => {
    expect(new Set(CASES.map(([type]) => type))).toEqual(new Set(ALL_TYPES));
  });

  test('labels', () => {
    expect(EXTENSION_LABELS).toMatchObject({
      key_usage: 'Key usage',
      extended_key_usage: 'Extended key usage',
      subject_alternative_name: 'Subject alternative name',
      basic_constraints: 'Basic constraints',
      authority_information_access: 'Authority information access',
      crl_distribution_points: 'CRL distribution points',
      certificate_policies: 'Certificate policies',
      name_constraints: 'Name constraints',
      subject_key_identifier: 'Subject key identifier',
      authority_key_identifier: 'Authority key identifier',
      precertificate_signed_certificate_timestamps: 'Signed certificate timestamps',
      tls_feature: 'TLS feature',
      ocsp_no_check: 'OCSP no check',
      unknown: 'Unknown extension',
    });
  });

  test('an extension the engine knows but could not decode keeps its label', () => {
    const ext: Extension = { type: 'unknown', critical: false, value: { oid: EXTENSION_OIDS.tls_feature, value: 'MAMCAQE=' } };
    expect(readableExtension(ext)).toEqual({
      type: 'unknown',
      label: 'TLS feature (not decoded)',
      oid: EXTENSION_OIDS.tls_feature,
      critical: false,
      lines: [`OID: ${EXTENSION_OIDS.tls_feature}`, 'Value: 30:03:02:01:01'],
    });
  });

  test('every extended key usage alias has a description', () => {
    expect(Object.keys(EXTENDED_KEY_USAGE_TEXT).sort()).toEqual(Object.keys(EXTENDED_KEY_USAGE_ALIASES).sort());
  });

  test('readableExtensions keeps the order and the critical flags', () => {
    const exts: Extension[] = [
      { type: 'basic_constraints', critical: true, value: { ca: false, path_length: null } },
      { type: 'subject_alternative_name', critical: false, value: [dns('a.example')] },
    ];
    expect(readableExtensions(exts).map((r) => [r.label, r.critical])).toEqual([
      ['Basic constraints', true],
      ['Subject alternative name', false],
    ]);
    expect(readableExtensions([])).toEqual([]);
  });
});

describe('every corpus certificate', () => {
  const corpus = loadCorpus();

  test('the corpus is there', () => {
    expect(corpus.length).toBeGreaterThan(20);
  });

  test.each(corpus.map((e) => [e.name, e.pem] as const))('%s', (_name, pem) => {
    const { extensions } = parseCertificate(pem);
    const readable = readableExtensions(extensions);
    expect(readable).toHaveLength(extensions.length);
    readable.forEach((r, i) => {
      expect(r.type).toBe(extensions[i].type);
      expect(r.label.trim()).not.toBe('');
      expect(r.oid).toMatch(/^\d+(\.\d+)+$/);
      for (const line of r.lines) {
        expect(typeof line).toBe('string');
        expect(line.trim()).not.toBe('');
        expect(line).not.toMatch(/undefined|\[object Object\]|NaN/);
      }
    });
  });
});

describe('exhaustiveness', () => {
  test('the renderer labels exactly the registry types and unknown', () => {
    expect(Object.keys(EXTENSION_LABELS).sort()).toEqual([...ALL_TYPES].sort());
    expect(ALL_TYPES).toHaveLength(24);
  });
});
