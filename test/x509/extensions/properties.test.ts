/**
 * Property: for random valid input v of every configurable extension type,
 * decode(encode(parse(v))) equals parse(v) — through the registry's envelope and real DER bytes.
 */
import fc from 'fast-check';
import { parseDer, toDer } from '../../../lib/x509/asn1';
import { CONFIGURABLE_EXTENSION_TYPES, decodeExtensionNode, encodeExtension, parseExtension } from '../../../lib/x509/extensions';
import type { ExtensionType } from '../../../lib/x509/types';

const NUM_RUNS = 100;

// --- building blocks -------------------------------------------------------------------------------

// No hyphens: IDNA forbids them in places (`ab--c`) and the point here is the codecs, not IDNA.
const label = fc.stringMatching(/^[a-z0-9]{1,10}$/);
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[a-z]{2,6}$/))
  .map(([labels, tld]) => [...labels, tld].join('.'));
const oidArb = fc
  .tuple(fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 39 }), fc.array(fc.nat({ max: 100000 }), { maxLength: 5 }))
  .map(([a, b, rest]) => [a, b, ...rest].join('.'));
const text = (max: number) => fc.string({ minLength: 1, maxLength: max, unit: 'grapheme' });
const ascii = (max: number) => fc.string({ minLength: 1, maxLength: max });
const uri = fc
  .tuple(fc.constantFrom('http', 'https', 'ldap'), domain, fc.stringMatching(/^[a-z0-9/]{0,12}$/))
  .map(([scheme, host, path]) => `${scheme}://${host}/${path}`);
const ipv4 = fc.ipV4();
const ipv6 = fc.ipV6();
const generalName = fc.oneof(
  domain.map((v) => ({ type: 'DNS', value: v })),
  fc.tuple(fc.stringMatching(/^[a-z0-9.+_-]{1,10}$/), domain).map(([l, d]) => ({ type: 'email', value: `${l}@${d}` })),
  uri.map((v) => ({ type: 'URI', value: v })),
  fc.oneof(ipv4, ipv6).map((v) => ({ type: 'IP', value: v })),
  oidArb.map((v) => ({ type: 'RID', value: v })),
  fc.tuple(ascii(20), fc.stringMatching(/^[A-Z]{2}$/)).map(([cn, c]) => ({
    type: 'dirName',
    value: [
      { oid: '2.5.4.6', value: c },
      { oid: '2.5.4.3', value: cn },
    ],
  })),
);
const byJson = { selector: (v: unknown) => JSON.stringify(v) };
const generalNames = fc.uniqueArray(generalName, { minLength: 1, maxLength: 4, ...byJson });
const nullOr = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const base64 = fc.uint8Array({ minLength: 1, maxLength: 16 }).map((b) => Buffer.from(b).toString('base64'));

// --- one valid-value arbitrary per configurable type ---------------------------------------------------

const KEY_USAGES = [
  'crl_sign',
  'data_encipherment',
  'digital_signature',
  'key_agreement',
  'key_cert_sign',
  'key_encipherment',
  'content_commitment',
  'cRLSign',
  'nonRepudiation',
  'digitalSignature',
];
const REASONS = [
  'aa_compromise',
  'affiliation_changed',
  'ca_compromise',
  'certificate_hold',
  'cessation_of_operation',
  'key_compromise',
  'privilege_withdrawn',
  'superseded',
];
const distributionPoint = fc.oneof(
  fc.record({ full_name: generalNames, crl_issuer: nullOr(generalNames), reasons: nullOr(fc.subarray(REASONS, { minLength: 1 })) }),
  fc.record({
    relative_name: ascii(20).map((cn) => [{ oid: '2.5.4.3', value: cn }]),
    crl_issuer: nullOr(generalNames),
    reasons: nullOr(fc.subarray(REASONS, { minLength: 1 })),
  }),
  fc.record({ crl_issuer: generalNames }),
);
const distributionPoints = fc.uniqueArray(distributionPoint, { minLength: 1, maxLength: 3, ...byJson });
const namingAuthority = fc.record({ id: nullOr(oidArb), url: nullOr(uri), text: nullOr(text(40)) });
const professionInfo = fc
  .record({
    naming_authority: nullOr(namingAuthority),
    profession_items: fc.array(text(30), { minLength: 1, maxLength: 3 }),
    with_oids: fc.boolean(),
    registration_number: nullOr(fc.stringMatching(/^[A-Za-z0-9 ]{1,20}$/)),
    add_profession_info: nullOr(base64),
  })
  .chain(({ with_oids, ...info }) =>
    (with_oids
      ? fc.array(oidArb, { minLength: info.profession_items.length, maxLength: info.profession_items.length })
      : fc.constant(null)
    ).map((oids) => ({ ...info, profession_oids: oids })),
  );
const noticeReference = fc.record({ organization: text(30), notice_numbers: fc.array(fc.nat({ max: 1_000_000 }), { maxLength: 4 }) });
const qualifier = fc.oneof(uri, fc.record({ notice_reference: nullOr(noticeReference), explicit_text: nullOr(text(60)) }));
const isoDate = fc
  .date({ min: new Date('1950-01-01T00:00:00Z'), max: new Date('9998-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

const VALUES: Record<string, fc.Arbitrary<unknown>> = {
  admissions: fc.record({
    authority: nullOr(generalName),
    admissions: fc.array(
      fc.record({
        admission_authority: nullOr(generalName),
        naming_authority: nullOr(namingAuthority),
        profession_infos: fc.array(professionInfo, { minLength: 1, maxLength: 2 }),
      }),
      { maxLength: 2 },
    ),
  }),
  authority_information_access: fc.uniqueArray(
    fc.record({ access_method: fc.constantFrom('ocsp', 'ca_issuers', '1.3.6.1.5.5.7.48.1'), access_location: generalName }),
    {
      minLength: 1,
      maxLength: 3,
      selector: (d) => JSON.stringify([d.access_method.replace('ocsp', '1.3.6.1.5.5.7.48.1'), d.access_location]),
    },
  ),
  certificate_policies: fc.uniqueArray(
    fc.record({ policy_identifier: oidArb, policy_qualifiers: nullOr(fc.array(qualifier, { maxLength: 3 })) }),
    { minLength: 1, maxLength: 3, ...byJson },
  ),
  crl_distribution_points: distributionPoints,
  extended_key_usage: fc
    .uniqueArray(fc.oneof(oidArb, fc.constant('serverAuth')), { minLength: 1, maxLength: 5 })
    .filter((l) => !(l.includes('serverAuth') && l.includes('1.3.6.1.5.5.7.3.1'))),
  freshest_crl: distributionPoints,
  issuer_alternative_name: generalNames,
  key_usage: fc
    .subarray(KEY_USAGES, { minLength: 1 })
    .filter(
      (l) =>
        !(l.includes('crl_sign') && l.includes('cRLSign')) &&
        !(l.includes('content_commitment') && l.includes('nonRepudiation')) &&
        !(l.includes('digital_signature') && l.includes('digitalSignature')),
    ),
  ms_certificate_template: fc
    .record({
      template_id: oidArb,
      major_version: nullOr(fc.nat({ max: 2 ** 32 - 1 })),
      minor_version: nullOr(fc.nat({ max: 2 ** 32 - 1 })),
    })
    .map((v) => (v.major_version === null ? { ...v, minor_version: null } : v)),
  ocsp_no_check: fc.constant(null),
  precert_poison: fc.constant(null),
  private_key_usage_period: fc
    .tuple(nullOr(isoDate), nullOr(isoDate))
    .filter(([a, b]) => (a !== null || b !== null) && (a === null || b === null || a < b))
    .map(([a, b]) => ({ not_before: a, not_after: b })),
  subject_alternative_name: generalNames,
  tls_feature: fc.subarray(['status_request', 'status_request_v2']).filter((l) => l.length > 0),
};

/** DistributionPoint reasons are a set: compare them order-free. */
function comparable(value: unknown): string {
  return JSON.stringify(value, (key, v) => {
    if (key === 'reasons' && Array.isArray(v)) return [...v].sort(); // a set upstream (models.md §6.6)
    if (typeof v === 'bigint') return v.toString();
    return v;
  });
}

test('every configurable type has a generator', () => {
  expect(Object.keys(VALUES).sort()).toEqual([...CONFIGURABLE_EXTENSION_TYPES].sort());
});

describe.each(Object.keys(VALUES))('%s', (type) => {
  test('decode(encode(parse(v))) equals parse(v)', () => {
    fc.assert(
      fc.property(VALUES[type], fc.boolean(), (value, critical) => {
        const input: Record<string, unknown> = { type, value };
        // ms_certificate_template has no default; the others keep theirs or take the required value.
        if (type === 'ms_certificate_template') input.critical = critical;
        const parsed = parseExtension(input, { requireType: true, configurableOnly: true });
        const back = decodeExtensionNode(parseDer(toDer(encodeExtension(parsed))));
        expect(back.type).toBe(parsed.type as ExtensionType);
        expect(back.critical).toBe(parsed.critical);
        if (type === 'key_usage') {
          // Read from a certificate, key usages come in the canonical order (models.md §6.1); compare as sets.
          expect([...(back.value as string[])].sort()).toEqual([...(parsed.value as string[])].sort());
        } else {
          expect(comparable(back.value)).toEqual(comparable(parsed.value));
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
