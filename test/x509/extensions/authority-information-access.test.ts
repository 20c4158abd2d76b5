import { parseExtension } from '../../../lib/x509/extensions';
import { authorityInformationAccessCodec as codec } from '../../../lib/x509/extensions/authority-information-access';
import { checkCorpusRoundTrips, cleanupOpenssl, issuesOf, opensslExtension } from './extension-fixtures';

afterAll(cleanupOpenssl);

const OCSP = '1.3.6.1.5.5.7.48.1';
const CA_ISSUERS = '1.3.6.1.5.5.7.48.2';
const uri = (value: string) => ({ type: 'URI', value });
/** A value parsed as the whole extension: the access-method rule belongs to the extension model (codec `checkModel`). */
const asExtension = (value: unknown) => parseExtension({ type: 'authority_information_access', value });

describe('authority_information_access codec', () => {
  test('envelope facts of models.md §5', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'authority_information_access',
      '1.3.6.1.5.5.7.1.1',
      false,
      false,
      true,
    ]);
  });

  test('every corpus AIA round-trips byte for byte and decodes to its JSON', () => {
    expect(checkCorpusRoundTrips(codec)).toBeGreaterThanOrEqual(20);
  });

  test('agrees with openssl', () => {
    const der = opensslExtension(
      '1.3.6.1.5.5.7.1.1',
      'authorityInfoAccess = OCSP;URI:http://ocsp.example, caIssuers;URI:http://ca.example/ca.der',
    );
    const expected = [
      { access_method: OCSP, access_location: uri('http://ocsp.example') },
      { access_method: CA_ISSUERS, access_location: uri('http://ca.example/ca.der') },
    ];
    expect(codec.decode(der)).toEqual(expected);
    expect(codec.encode(codec.parse(expected)).toString('hex')).toBe(der.toString('hex'));
  });

  test('aliases are accepted on input and come back dotted, keys in emission order', () => {
    const value = codec.parse([
      { access_location: uri('http://ocsp.example'), access_method: 'ocsp' },
      { access_method: 'ca_issuers', access_location: uri('http://ca.example') },
    ]);
    expect(value).toEqual([
      { access_method: OCSP, access_location: uri('http://ocsp.example') },
      { access_method: CA_ISSUERS, access_location: uri('http://ca.example') },
    ]);
    expect(Object.keys(value[0])).toEqual(['access_method', 'access_location']);
    expect(codec.decode(codec.encode(value))).toEqual(value);
  });

  test('rule: only ocsp and ca_issuers are acceptable (reference: loc of the extension)', () => {
    expect(issuesOf(() => asExtension([{ access_method: 'ca_repository', access_location: uri('http://r.example') }]))).toEqual([
      { type: 'value_error', loc: [], msg: '1.3.6.1.5.5.7.48.5: access_method not acceptable for this extension.' },
    ]);
    expect(issuesOf(() => asExtension([{ access_method: '1.2.3', access_location: uri('http://r.example') }]))).toEqual([
      { type: 'value_error', loc: [], msg: '1.2.3: access_method not acceptable for this extension.' },
    ]);
  });

  test('rule: access_method must be an OID or alias', () => {
    expect(issuesOf(() => codec.parse([{ access_method: 'foo', access_location: uri('http://r.example') }]))).toEqual([
      { type: 'value_error', loc: [0, 'access_method'], msg: 'foo: Invalid object identifier' },
    ]);
  });

  test('rule: both fields are required, problems of all items are collected', () => {
    expect(issuesOf(() => codec.parse([{ access_method: 'ocsp' }, { access_location: uri('http://x.example') }]))).toEqual([
      { type: 'missing', loc: [0, 'access_location'], msg: 'Field required' },
      { type: 'missing', loc: [1, 'access_method'], msg: 'Field required' },
    ]);
  });

  test('rule: access_location is a valid GeneralName (loc inside the item)', () => {
    expect(issuesOf(() => codec.parse([{ access_method: 'ocsp', access_location: uri('ocsp.example') }]))).toEqual([
      { type: 'value_error', loc: [0, 'access_location'], msg: 'URL requires scheme and network location: ocsp.example' },
    ]);
  });

  test('rule: items are objects', () => {
    expect(issuesOf(() => codec.parse(['ocsp']))).toEqual([
      { type: 'model_type', loc: [0], msg: 'Input should be a valid dictionary or instance of AccessDescriptionModel' },
    ]);
  });

  test('rule: the list must not be empty', () => {
    expect(issuesOf(() => codec.parse([]))).toEqual([{ type: 'value_error', loc: [], msg: 'value must not be empty' }]);
  });

  test('rule: the value is a list', () => {
    expect(issuesOf(() => codec.parse({ access_method: 'ocsp' }))).toEqual([
      { type: 'list_type', loc: [], msg: 'Input should be a valid list' },
    ]);
  });

  test('rule: descriptions must be unique (after alias resolution)', () => {
    const issues = issuesOf(() =>
      codec.parse([
        { access_method: 'ocsp', access_location: uri('http://o.example') },
        { access_method: OCSP, access_location: uri('http://o.example') },
      ]),
    );
    expect(issues).toEqual([
      {
        type: 'value_error',
        loc: [],
        msg:
          "access_method='1.3.6.1.5.5.7.48.1' access_location=GeneralNameModel(type='URI', value='http://o.example'): " +
          'value must be unique',
      },
    ]);
  });
});
