/**
 * A leaf carrying every one of the 14 configurable extension types (models.md §5), with values that
 * exercise their optional parts: OpenSSL must read it cleanly, and reading it back must give exactly
 * the normalised request extensions, in order, after the mandatory AKI/BC/SKI.
 */
import { execFileSync } from 'child_process';
import { buildCertificate } from '../../lib/x509/builder';
import { parseCertificate } from '../../lib/x509/certificate';
import { CONFIGURABLE_EXTENSION_TYPES, parseExtension } from '../../lib/x509/extensions';
import { subjectKeyIdentifier } from '../../lib/x509/key-identifier';
import { keyObjectSigner } from '../../lib/x509/key-signer';
import { generatePrivateKey, publicKeyDer } from '../../lib/x509/keys';
import type { Extension } from '../../lib/x509/types';

/** Request extensions as a client would send them: aliases, omitted defaults, IDNA, mixed cases. */
const REQUEST: unknown[] = [
  {
    type: 'admissions',
    value: {
      authority: { type: 'URI', value: 'https://authority.example.com' },
      admissions: [
        {
          admission_authority: { type: 'DNS', value: 'admission.example.com' },
          naming_authority: { id: '1.2.3.4', url: 'https://naming.example.com', text: 'Naming authority' },
          profession_infos: [
            {
              naming_authority: { id: null, url: null, text: 'Profession naming' },
              profession_items: ['Apotheker', 'Arzt'],
              profession_oids: ['1.2.276.0.76.4.49', '1.2.276.0.76.4.30'],
              registration_number: 'REG-1234',
              add_profession_info: Buffer.from('additional info').toString('base64'),
            },
            {
              naming_authority: null,
              profession_items: ['minimal'],
              profession_oids: null,
              registration_number: null,
              add_profession_info: null,
            },
          ],
        },
      ],
    },
  },
  {
    type: 'authority_information_access',
    value: [
      { access_method: 'ocsp', access_location: { type: 'URI', value: 'http://ocsp.example.com/' } },
      { access_method: 'ca_issuers', access_location: { type: 'URI', value: 'http://ca.example.com/ca.der' } },
    ],
  },
  {
    type: 'certificate_policies',
    critical: true,
    value: [
      {
        policy_identifier: '2.5.29.32.0',
        policy_qualifiers: [
          'https://cps.example.com/cps',
          {
            notice_reference: { organization: 'Example Org', notice_numbers: [1, 2, 3] },
            explicit_text: 'Explicit notice text',
          },
          { notice_reference: null, explicit_text: 'Only text' },
        ],
      },
      { policy_identifier: '1.3.6.1.4.1.55555.1.2', policy_qualifiers: null },
    ],
  },
  {
    type: 'crl_distribution_points',
    value: [
      { full_name: [{ type: 'URI', value: 'http://crl.example.com/ca.crl' }], relative_name: null, crl_issuer: null, reasons: null },
      {
        full_name: null,
        relative_name: [{ oid: 'CN', value: 'rdn.example.com' }],
        crl_issuer: [
          {
            type: 'dirName',
            value: [
              { oid: 'O', value: 'CRL Issuer Org' },
              { oid: 'CN', value: 'CRL Issuer' },
            ],
          },
        ],
        reasons: ['ca_compromise', 'key_compromise', 'superseded'],
      },
    ],
  },
  { type: 'extended_key_usage', critical: true, value: ['serverAuth', 'clientAuth', '1.3.6.1.5.5.7.3.9', 'msKDC'] },
  {
    type: 'freshest_crl',
    value: [
      { full_name: [{ type: 'URI', value: 'http://delta.example.com/delta.crl' }], relative_name: null, crl_issuer: null, reasons: null },
    ],
  },
  {
    type: 'issuer_alternative_name',
    value: [
      { type: 'URI', value: 'http://issuer.example.com/' },
      { type: 'email', value: 'ca@example.com' },
    ],
  },
  // Read back in canonical order: digital_signature, encipher_only, key_agreement.
  { type: 'key_usage', value: ['digitalSignature', 'encipherOnly', 'keyAgreement'] },
  {
    type: 'ms_certificate_template',
    critical: false,
    value: { template_id: '1.3.6.1.4.1.311.21.8.1.2', major_version: 100, minor_version: 3 },
  },
  { type: 'ocsp_no_check' },
  { type: 'precert_poison', critical: true, value: null },
  { type: 'private_key_usage_period', value: { not_before: '2026-01-01T00:00:00Z', not_after: '2027-06-30T12:30:00Z' } },
  {
    type: 'subject_alternative_name',
    value: [
      { type: 'DNS', value: 'exämple.com' },
      { type: 'DNS', value: '*.wild.example.com' },
      { type: 'IP', value: '192.0.2.1' },
      { type: 'IP', value: '2001:db8::1' },
      { type: 'email', value: 'user@example.com' },
      { type: 'URI', value: 'https://www.example.com:8443/path' },
      { type: 'RID', value: '1.2.3.4.5' },
      {
        type: 'dirName',
        value: [
          { oid: 'C', value: 'AT' },
          { oid: 'CN', value: 'dir.example.com' },
        ],
      },
      { type: 'otherName', value: { oid: '1.3.6.1.4.1.311.20.2.3', type: 'UTF8', value: 'upn@example.com' } },
    ],
  },
  { type: 'tls_feature', value: ['OCSPMustStaple', 'MultipleCertStatusRequest'] },
];

/** What `openssl x509 -text` calls each type (proves it parsed each extension, not just the list). */
const OPENSSL_NAMES = [
  'Professional Information or basis for Admission',
  'Authority Information Access',
  'X509v3 Certificate Policies: critical',
  'X509v3 CRL Distribution Points',
  'X509v3 Extended Key Usage: critical',
  'X509v3 Freshest CRL',
  'X509v3 Issuer Alternative Name',
  'X509v3 Key Usage: critical',
  '1.3.6.1.4.1.311.21.7',
  'OCSP No Check',
  'CT Precertificate Poison: critical',
  'X509v3 Private Key Usage Period',
  'X509v3 Subject Alternative Name',
  'TLS Feature',
  // and the details inside them
  'DNS:xn--exmple-cua.com',
  'IP Address:2001:DB8:0:0:0:0:0:1',
  'Registered ID:1.2.3.4.5',
  'DirName:/C=AT/CN=dir.example.com',
  'othername: UPN::upn@example.com',
  'Policy: X509v3 Any Policy',
  'CPS: https://cps.example.com/cps',
  'Explicit Text: Explicit notice text',
  'Key Compromise, CA Compromise, Superseded',
  'TLS Web Server Authentication',
  'OCSP - URI:http://ocsp.example.com/',
  'status_request',
];

test('the request covers every configurable type exactly once', () => {
  const types = REQUEST.map((e) => (e as { type: string }).type);
  expect([...types].sort()).toEqual([...CONFIGURABLE_EXTENSION_TYPES].sort());
  expect(CONFIGURABLE_EXTENSION_TYPES).toHaveLength(14);
});

test('a leaf with all 14 configurable extensions: OpenSSL reads it, we read back what was requested', async () => {
  const requested = REQUEST.map((e) => parseExtension(e, { requireType: true, configurableOnly: true }));
  const ca = keyObjectSigner(generatePrivateKey({ keyType: 'EC', curve: 'secp256r1' }));
  const leafSpki = publicKeyDer(generatePrivateKey({ keyType: 'Ed25519' }));
  const mandatory: Extension[] = [
    {
      type: 'authority_key_identifier',
      critical: false,
      value: {
        key_identifier: subjectKeyIdentifier(ca.publicKeyDer).toString('base64'),
        authority_cert_issuer: null,
        authority_cert_serial_number: null,
      },
    },
    { type: 'basic_constraints', critical: true, value: { ca: false, path_length: null } },
    { type: 'subject_key_identifier', critical: false, value: subjectKeyIdentifier(leafSpki).toString('base64') },
  ];
  const extensions = [...mandatory, ...requested];
  const der = await buildCertificate(
    {
      issuer: [{ oid: '2.5.4.3', value: 'All Extensions CA' }],
      subject: [{ oid: '2.5.4.3', value: 'all-extensions.example.com' }],
      notBefore: new Date('2026-01-01T00:00:00Z'),
      notAfter: new Date('2026-04-11T00:00:00Z'),
      publicKeyDer: leafSpki,
      extensions,
      signature: { hash: 'SHA-256' },
    },
    ca,
  );

  const result = execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-text'], {
    input: der,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const text = result.toString();
  expect(text).not.toMatch(/error|unable|bad|invalid|<unsupported>/i);
  for (const name of OPENSSL_NAMES) expect(text).toContain(name);

  const json = parseCertificate(der).json;
  expect(json.extensions).toEqual(extensions);
  expect(json.extensions.map((e) => e.type)).toEqual(extensions.map((e) => e.type));
});
