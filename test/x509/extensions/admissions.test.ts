import * as asn1 from '../../../lib/x509/asn1';
import { admissionsCodec as codec } from '../../../lib/x509/extensions/admissions';
import { execFileSync } from 'child_process';
import { checkCorpusRoundTrips, cleanupOpenssl, issuesOf, opensslCertificate } from './extension-fixtures';

afterAll(cleanupOpenssl);

const uri = (value: string) => ({ type: 'URI', value });
const minimalInfo = { profession_items: ['item'] };

/** A valid value with one admission holding `info` as its only profession info. */
const withInfo = (info: object) => ({ admissions: [{ profession_infos: [info] }] });
const INFO_LOC = ['admissions', 0, 'profession_infos', 0];

describe('admissions codec', () => {
  test('envelope facts of models.md §5', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'admissions',
      '1.3.36.8.3.3',
      false,
      null,
      true,
    ]);
  });

  test('every corpus Admissions round-trips byte for byte and decodes to its JSON', () => {
    expect(checkCorpusRoundTrips(codec)).toBeGreaterThanOrEqual(2);
  });

  test('defaults are filled and output keys come in emission order', () => {
    const value = codec.parse({ admissions: [{ profession_infos: [minimalInfo] }] });
    expect(value).toEqual({
      authority: null,
      admissions: [
        {
          admission_authority: null,
          naming_authority: null,
          profession_infos: [
            {
              naming_authority: null,
              profession_items: ['item'],
              profession_oids: null,
              registration_number: null,
              add_profession_info: null,
            },
          ],
        },
      ],
    });
    expect(Object.keys(value)).toEqual(['authority', 'admissions']);
    expect(Object.keys(value.admissions[0])).toEqual(['admission_authority', 'naming_authority', 'profession_infos']);
    expect(Object.keys(value.admissions[0].profession_infos[0])).toEqual([
      'naming_authority',
      'profession_items',
      'profession_oids',
      'registration_number',
      'add_profession_info',
    ]);
  });

  test('admissions defaults to [] and encodes as an empty SEQUENCE OF', () => {
    const value = codec.parse({});
    expect(value).toEqual({ authority: null, admissions: [] });
    expect(codec.encode(value).toString('hex')).toBe('30023000');
  });

  test('a full value survives encode → decode, with the ASN.1 types of the syntax', () => {
    const value = codec.parse({
      authority: uri('https://authority.example'),
      admissions: [
        {
          admission_authority: { type: 'DNS', value: 'adm.example' },
          naming_authority: { id: '1.2.3', url: 'https://na.example', text: 'Näming' },
          profession_infos: [
            {
              naming_authority: {},
              profession_items: ['Ärztin', 'b'],
              profession_oids: ['1.2.3.4', '1.2.3.5'],
              registration_number: 'REG-1',
              add_profession_info: 'AAEC',
            },
          ],
        },
      ],
    });
    const der = codec.encode(value);
    expect(codec.decode(der)).toEqual(value);
    // Spot-check tags: authority untagged GeneralName [6], admission authority [0] EXPLICIT, naming authority
    // [1] EXPLICIT with IA5String url and UTF8String text, PrintableString registration, OCTET STRING info.
    const top = asn1.readSequence(asn1.parseDer(der), 'top');
    expect(asn1.contextTag(top[0])).toBe(6);
    const admission = asn1.readSequence(asn1.readSequence(top[1], 'list')[0], 'admission');
    expect(asn1.contextTag(admission[0])).toBe(0);
    expect(asn1.contextTag(asn1.children(admission[0], 'x')[0])).toBe(2);
    const naming = asn1.readSequence(asn1.children(admission[1], 'x')[0], 'naming');
    expect(naming.map((n) => n.type)).toEqual([asn1.Type.OID, asn1.Type.IA5STRING, asn1.Type.UTF8]);
    const info = asn1.readSequence(asn1.readSequence(admission[2], 'infos')[0], 'info');
    expect(info.map((n) => n.type)).toEqual([0, asn1.Type.SEQUENCE, asn1.Type.SEQUENCE, asn1.Type.PRINTABLESTRING, asn1.Type.OCTETSTRING]);
  });

  test("openssl's own Admissions parser reads what we write", () => {
    const value = codec.parse({
      authority: uri('https://authority.example'),
      admissions: [
        {
          naming_authority: { id: '1.2.3', url: 'https://na.example', text: 'NA text' },
          profession_infos: [{ profession_items: ['prof'], profession_oids: ['1.2.3.5'], registration_number: 'R1' }],
        },
      ],
    });
    const hex = codec.encode(value).toString('hex').toUpperCase();
    const pem = opensslCertificate(`1.3.36.8.3.3 = DER:${hex}`);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem, encoding: 'utf8' });
    const section = text.slice(text.indexOf('Professional Information or basis for Admission'));
    expect(section).toMatch(/admissionAuthority:\s+URI:https:\/\/authority\.example/);
    expect(section).toMatch(/namingAuthorityId: undefined \(1\.2\.3\)/);
    expect(section).toMatch(/namingAuthorityText: NA text/);
    expect(section).toMatch(/namingAuthorityUrl: https:\/\/na\.example/);
    expect(section).toMatch(/registrationNumber: R1/);
    expect(section).toMatch(/Info Entries:\s+prof/);
    expect(section).toMatch(/Profession OIDs:\s+undefined \(1\.2\.3\.5\)/);
  });

  test('rule: profession_oids, if present, has the length of profession_items', () => {
    expect(issuesOf(() => codec.parse(withInfo({ profession_items: ['a', 'b'], profession_oids: ['1.2.3'] })))).toEqual([
      { type: 'value_error', loc: INFO_LOC, msg: 'if present, profession_oids must have the same length as profession_items.' },
    ]);
  });

  test('rule: profession_infos has at least one item', () => {
    expect(issuesOf(() => codec.parse({ admissions: [{ profession_infos: [] }] }))).toEqual([
      { type: 'too_short', loc: ['admissions', 0, 'profession_infos'], msg: 'List should have at least 1 item after validation, not 0' },
    ]);
  });

  test('rule: profession_items is required and has at least one item', () => {
    expect(issuesOf(() => codec.parse(withInfo({})))).toEqual([
      { type: 'missing', loc: [...INFO_LOC, 'profession_items'], msg: 'Field required' },
    ]);
    expect(issuesOf(() => codec.parse(withInfo({ profession_items: [] })))).toEqual([
      { type: 'too_short', loc: [...INFO_LOC, 'profession_items'], msg: 'List should have at least 1 item after validation, not 0' },
    ]);
  });

  test('rule: strings are at most 128 characters', () => {
    const long = 'x'.repeat(129);
    expect(
      issuesOf(() =>
        codec.parse(withInfo({ profession_items: [long], registration_number: long, naming_authority: { url: long, text: long } })),
      ),
    ).toEqual([
      { type: 'string_too_long', loc: [...INFO_LOC, 'naming_authority', 'url'], msg: 'String should have at most 128 characters' },
      { type: 'string_too_long', loc: [...INFO_LOC, 'naming_authority', 'text'], msg: 'String should have at most 128 characters' },
      { type: 'string_too_long', loc: [...INFO_LOC, 'profession_items', 0], msg: 'String should have at most 128 characters' },
      { type: 'string_too_long', loc: [...INFO_LOC, 'registration_number'], msg: 'String should have at most 128 characters' },
    ]);
    expect(
      codec.parse(withInfo({ profession_items: ['x'.repeat(128)] })).admissions[0].profession_infos[0].profession_items[0],
    ).toHaveLength(128);
  });

  test('rule: OIDs are valid', () => {
    expect(issuesOf(() => codec.parse(withInfo({ profession_items: ['a'], profession_oids: ['foo'] })))).toEqual([
      { type: 'value_error', loc: [...INFO_LOC, 'profession_oids', 0], msg: 'foo: Invalid object identifier' },
    ]);
    expect(issuesOf(() => codec.parse({ admissions: [{ naming_authority: { id: '9.1' }, profession_infos: [minimalInfo] }] }))).toEqual([
      { type: 'value_error', loc: ['admissions', 0, 'naming_authority', 'id'], msg: '9.1: Invalid object identifier' },
    ]);
  });

  test('rule: add_profession_info is base64', () => {
    expect(issuesOf(() => codec.parse(withInfo({ profession_items: ['a'], add_profession_info: 'abc' })))).toEqual([
      { type: 'value_error', loc: [...INFO_LOC, 'add_profession_info'], msg: 'abc: Not a valid base64 string' },
    ]);
  });

  test('rule: authorities are GeneralNames', () => {
    expect(
      issuesOf(() =>
        codec.parse({
          authority: uri('nope'),
          admissions: [{ admission_authority: { type: 'IP', value: 'x' }, profession_infos: [minimalInfo] }],
        }),
      ),
    ).toEqual([
      { type: 'value_error', loc: ['authority'], msg: 'URL requires scheme and network location: nope' },
      { type: 'value_error', loc: ['admissions', 0, 'admission_authority'], msg: 'x: Could not parse IP address' },
    ]);
  });

  test('rule: strings that the ASN.1 string type cannot carry are refused', () => {
    expect(issuesOf(() => codec.parse(withInfo({ profession_items: ['a'], registration_number: 'nö' })))).toEqual([
      { type: 'value_error', loc: [...INFO_LOC, 'registration_number'], msg: 'nö: must be a valid PrintableString' },
    ]);
  });

  test('rule: the value and its parts are objects / lists', () => {
    expect(issuesOf(() => codec.parse([]))).toEqual([
      { type: 'model_type', loc: [], msg: 'Input should be a valid dictionary or instance of AdmissionsValueModel' },
    ]);
    expect(issuesOf(() => codec.parse({ admissions: null }))).toEqual([
      { type: 'list_type', loc: ['admissions'], msg: 'Input should be a valid list' },
    ]);
    expect(issuesOf(() => codec.parse({ admissions: ['x'] }))).toEqual([
      { type: 'model_type', loc: ['admissions', 0], msg: 'Input should be a valid dictionary or instance of AdmissionModel' },
    ]);
  });
});
