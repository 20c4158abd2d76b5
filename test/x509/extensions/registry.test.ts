import { execFileSync } from 'child_process';
import { parseDer, toDer } from '../../../lib/x509/asn1';
import {
  CONFIGURABLE_EXTENSION_TYPES,
  EXTENSION_CODECS,
  codecByOid,
  codecByType,
  criticalViolation,
  decodeExtension,
  decodeExtensionNode,
  encodeExtension,
  parseExtension,
} from '../../../lib/x509/extensions';
import { EXTENSION_OIDS } from '../../../lib/x509/oids';
import { issuesOf } from './helpers/issues';
import { opensslExtensions } from './helpers/openssl-extensions';

/** models.md §5: type → [default critical, required critical, configurable]. */
const TABLE: Record<string, [boolean | null, boolean | null, boolean]> = {
  admissions: [false, null, true],
  authority_information_access: [false, false, true],
  authority_key_identifier: [false, false, false],
  basic_constraints: [true, null, false],
  certificate_policies: [false, null, true],
  crl_distribution_points: [false, null, true],
  extended_key_usage: [false, null, true],
  freshest_crl: [false, false, true],
  inhibit_any_policy: [true, true, false],
  issuer_alternative_name: [false, null, true],
  key_usage: [true, null, true],
  ms_certificate_template: [null, null, true],
  name_constraints: [true, true, false],
  ocsp_no_check: [false, null, true],
  policy_constraints: [true, true, false],
  precert_poison: [true, true, true],
  precertificate_signed_certificate_timestamps: [false, null, false],
  private_key_usage_period: [false, false, true],
  signed_certificate_timestamps: [false, null, false],
  subject_alternative_name: [false, null, true],
  subject_information_access: [false, false, false],
  subject_key_identifier: [false, false, false],
  tls_feature: [false, null, true],
};

describe('registry', () => {
  test('all 23 types are registered, by type and by OID, with the §5 flags', () => {
    expect(EXTENSION_CODECS.map((c) => c.type).sort()).toEqual(Object.keys(TABLE).sort());
    for (const [type, [dflt, req, conf]] of Object.entries(TABLE)) {
      const codec = codecByType(type)!;
      expect({ type, oid: codec.oid, dflt: codec.defaultCritical, req: codec.requiredCritical, conf: codec.configurable }).toEqual({
        type,
        oid: EXTENSION_OIDS[type as keyof typeof EXTENSION_OIDS],
        dflt,
        req,
        conf,
      });
      expect(codecByOid(codec.oid)).toBe(codec);
    }
    expect(codecByType('unknown')).toBeUndefined();
  });

  test('the configurable types are the 14 of the reference', () => {
    expect([...CONFIGURABLE_EXTENSION_TYPES].sort()).toEqual([
      'admissions',
      'authority_information_access',
      'certificate_policies',
      'crl_distribution_points',
      'extended_key_usage',
      'freshest_crl',
      'issuer_alternative_name',
      'key_usage',
      'ms_certificate_template',
      'ocsp_no_check',
      'precert_poison',
      'private_key_usage_period',
      'subject_alternative_name',
      'tls_feature',
    ]);
  });
});

describe('envelope encoding', () => {
  test('Extension SEQUENCEs match openssl (critical TRUE written, FALSE omitted)', () => {
    const raw = opensslExtensions(['keyUsage = critical, digitalSignature', 'extendedKeyUsage = serverAuth']);
    for (const r of raw) {
      const ext = decodeExtension(r.oid, r.critical, r.extnValue);
      const node = encodeExtension(ext);
      const back = decodeExtensionNode(parseDer(toDer(node)));
      expect(back).toEqual(ext);
      const hex = toDer(node).toString('hex');
      expect(hex.startsWith('30')).toBe(true);
      expect(hex.includes('0101ff')).toBe(r.critical);
    }
    expect(raw.map((r) => r.critical)).toEqual([true, false]);
  });

  test('unknown OIDs and unreadable values become `unknown` and re-encode their bytes', () => {
    const unknown = decodeExtension('1.2.3.4.5', false, Buffer.from('0500', 'hex'));
    expect(unknown).toEqual({ type: 'unknown', critical: false, value: { oid: '1.2.3.4.5', value: 'BQA=' } });
    const garbage = decodeExtension(EXTENSION_OIDS.key_usage, true, Buffer.from('0c0161', 'hex'));
    expect(garbage).toEqual({ type: 'unknown', critical: true, value: { oid: '2.5.29.15', value: 'DAFh' } });
    const der = toDer(encodeExtension(garbage));
    // cross-check the envelope with openssl's own parser
    const text = execFileSync('openssl', ['asn1parse', '-inform', 'DER'], { input: der }).toString();
    expect(text).toMatch(/OBJECT\s+:X509v3 Key Usage/);
    expect(text).toMatch(/BOOLEAN\s+:255/);
    expect(text).toMatch(/OCTET STRING\s+\[HEX DUMP\]:0C0161/);
  });

  test('criticalViolation reports the RFC rule without failing the read', () => {
    expect(criticalViolation({ type: 'name_constraints', critical: false, value: null })).toBe('this extension must be marked as critical');
    expect(criticalViolation({ type: 'key_usage', critical: false, value: [] })).toBeNull();
  });
});

describe('parseExtension', () => {
  test('defaults critical and normalises the value', () => {
    expect(parseExtension({ type: 'key_usage', value: ['keyCertSign'] })).toEqual({
      type: 'key_usage',
      critical: true,
      value: ['key_cert_sign'],
    });
    expect(parseExtension({ type: 'ocsp_no_check' })).toEqual({ type: 'ocsp_no_check', critical: false, value: null });
  });

  test('type handling', () => {
    expect(issuesOf(() => parseExtension({ value: [] }, { requireType: true }))).toEqual([
      { type: 'union_tag_not_found', loc: [], msg: "Unable to extract tag using discriminator 'type'" },
    ]);
    const [notConfigurable] = issuesOf(() =>
      parseExtension({ type: 'basic_constraints', value: { ca: true, path_length: null } }, { configurableOnly: true }),
    );
    expect(notConfigurable.type).toBe('union_tag_invalid');
    expect(notConfigurable.msg).toBe(
      "Input tag 'basic_constraints' found using 'type' does not match any of the expected tags: 'admissions', " +
        "'authority_information_access', 'certificate_policies', 'crl_distribution_points', 'extended_key_usage', " +
        "'freshest_crl', 'issuer_alternative_name', 'key_usage', 'ms_certificate_template', 'ocsp_no_check', " +
        "'precert_poison', 'private_key_usage_period', 'subject_alternative_name', 'tls_feature'",
    );
    expect(parseExtension({ value: ['1.2.3'] }, { expectedType: 'extended_key_usage' }).type).toBe('extended_key_usage');
    expect(issuesOf(() => parseExtension({ type: 'key_usage', value: ['1.2.3'] }, { expectedType: 'extended_key_usage' }))).toEqual([
      { type: 'literal_error', loc: ['type'], msg: "Input should be 'extended_key_usage'" },
    ]);
  });

  test('critical rules and value locs', () => {
    expect(issuesOf(() => parseExtension({ type: 'ms_certificate_template', value: { template_id: '1.2.3' } }))).toEqual([
      { type: 'missing', loc: ['critical'], msg: 'Field required' },
    ]);
    expect(issuesOf(() => parseExtension({ type: 'precert_poison', critical: false }))).toEqual([
      { type: 'value_error', loc: ['critical'], msg: 'this extension must be marked as critical' },
    ]);
    expect(
      issuesOf(() => parseExtension({ type: 'private_key_usage_period', critical: true, value: { not_after: '2030-01-01' } }))[0].msg,
    ).toBe('this extension must be marked as non-critical');
    const both = issuesOf(() => parseExtension({ type: 'inhibit_any_policy', critical: false, value: -1 }));
    expect(both.map((i) => i.loc)).toEqual([['critical'], ['value']]);
    expect(issuesOf(() => parseExtension({ type: 'key_usage', value: ['unknown'] }))[0].loc).toEqual(['value', 0]);
    expect(issuesOf(() => parseExtension({ type: 'key_usage', value: [] }))[0]).toEqual({
      type: 'value_error',
      loc: ['value'],
      msg: 'value must not be empty',
    });
  });

  test('unknown extensions need critical and a valid value', () => {
    expect(parseExtension({ type: 'unknown', critical: false, value: { oid: '1.2.3', value: 'BQA=' } })).toEqual({
      type: 'unknown',
      critical: false,
      value: { oid: '1.2.3', value: 'BQA=' },
    });
    expect(issuesOf(() => parseExtension({ type: 'unknown', value: { oid: 'x', value: 'BQA=' } })).map((i) => i.loc)).toEqual([
      ['critical'],
      ['value', 'oid'],
    ]);
  });
});
