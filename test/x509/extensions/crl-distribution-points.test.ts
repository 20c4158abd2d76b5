import { crlDistributionPointsCodec as codec } from '../../../lib/x509/extensions/crl-distribution-points';
import { checkCorpusRoundTrips, cleanupOpenssl, issuesOf, opensslExtension, viaJson } from './extension-fixtures';

afterAll(cleanupOpenssl);

const OID = '2.5.29.31';
const uri = (value: string) => ({ type: 'URI', value });
const point = (fields: object) => ({ full_name: null, relative_name: null, crl_issuer: null, reasons: null, ...fields });

/** The corpus JSON lists reasons in bit order; contract D8 emits them sorted alphabetically. */
function sortReasons(json: unknown): unknown {
  return (json as { reasons: string[] | null }[]).map((dp) => ({
    ...dp,
    reasons: dp.reasons ? [...dp.reasons].sort() : null,
  }));
}

describe('crl_distribution_points codec', () => {
  test('envelope facts of models.md §5', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'crl_distribution_points',
      OID,
      false,
      null,
      true,
    ]);
  });

  test('every corpus CRL DP round-trips byte for byte and decodes to its JSON (reasons sorted)', () => {
    expect(checkCorpusRoundTrips(codec, sortReasons)).toBeGreaterThanOrEqual(20);
  });

  test('agrees with openssl: reasons bits trimmed, relative name, CRL issuer', () => {
    const der = opensslExtension(
      OID,
      'crlDistributionPoints = dp1, dp2',
      '[dp1]\nfullname = URI:http://a.example/crl\nreasons = keyCompromise, AACompromise\nCRLissuer = URI:http://issuer.example\n' +
        '[dp2]\nrelativename = rdn_sect\nCRLissuer = URI:http://i2.example\n' +
        '[rdn_sect]\nCN = rdn.example\n+O = Org\n',
    );
    const expected = [
      point({
        full_name: [uri('http://a.example/crl')],
        crl_issuer: [uri('http://issuer.example')],
        reasons: ['aa_compromise', 'key_compromise'],
      }),
      point({
        // one multi-valued RDN; DER orders the SET by encoding (the shorter O attribute first)
        relative_name: [
          { oid: '2.5.4.10', value: 'Org' },
          { oid: '2.5.4.3', value: 'rdn.example' },
        ],
        crl_issuer: [uri('http://i2.example')],
      }),
    ];
    expect(viaJson(codec.decode(der))).toEqual(expected);
    expect(codec.encode(codec.parse(expected)).toString('hex')).toBe(der.toString('hex'));
  });

  test.each([
    ['keyCompromise', 'key_compromise'],
    ['CACompromise', 'ca_compromise'],
    ['affiliationChanged', 'affiliation_changed'],
    ['superseded', 'superseded'],
    ['cessationOfOperation', 'cessation_of_operation'],
    ['certificateHold', 'certificate_hold'],
    ['privilegeWithdrawn', 'privilege_withdrawn'],
    ['AACompromise', 'aa_compromise'],
  ])('reason %s is the same bit as openssl writes', (opensslName, apiName) => {
    const der = opensslExtension(
      OID,
      'crlDistributionPoints = dp1',
      `[dp1]\nfullname = URI:http://a.example/crl\nreasons = ${opensslName}\n`,
    );
    const value = codec.parse([{ full_name: [uri('http://a.example/crl')], reasons: [apiName] }]);
    expect(codec.encode(value).toString('hex')).toBe(der.toString('hex'));
    expect(codec.decode(der)[0].reasons).toEqual([apiName]);
  });

  test('reasons: duplicates collapse, output is sorted, order of input does not matter', () => {
    const value = codec.parse([{ crl_issuer: [uri('http://i.example')], reasons: ['superseded', 'ca_compromise', 'superseded'] }]);
    expect(value[0].reasons).toEqual(['ca_compromise', 'superseded']);
    expect(codec.decode(codec.encode(value))).toEqual(value);
  });

  test('output keys are always all four, in emission order', () => {
    const value = codec.parse([{ full_name: [uri('http://a.example/crl')] }]);
    expect(Object.keys(value[0])).toEqual(['full_name', 'relative_name', 'crl_issuer', 'reasons']);
    expect(Object.keys(codec.decode(codec.encode(value))[0])).toEqual(['full_name', 'relative_name', 'crl_issuer', 'reasons']);
  });

  test('empty lists count as absent', () => {
    const value = codec.parse([{ full_name: [], relative_name: [], crl_issuer: [uri('http://i.example')], reasons: [] }]);
    expect(value).toEqual([point({ crl_issuer: [uri('http://i.example')] })]);
  });

  test('a multi-valued relative name is normalised to DER order so it survives a round trip', () => {
    const value = codec.parse([
      {
        relative_name: [
          { oid: 'CN', value: 'rdn.example' },
          { oid: 'O', value: 'Org' },
        ],
      },
    ]);
    expect(value[0].relative_name).toEqual([
      { oid: '2.5.4.10', value: 'Org' },
      { oid: '2.5.4.3', value: 'rdn.example' },
    ]);
    expect(codec.decode(codec.encode(value))).toEqual(value);
  });

  test('rule: not both full_name and relative_name', () => {
    const input = [{ full_name: [uri('http://a.example')], relative_name: [{ oid: 'CN', value: 'x' }] }];
    expect(issuesOf(() => codec.parse(input))).toEqual([
      { type: 'value_error', loc: [0], msg: 'must give exactly one of full_name or relative_name.' },
    ]);
  });

  test('rule: at least one of full_name, relative_name, crl_issuer (empty lists count as absent)', () => {
    const msg = 'either full_name, relative_name or crl_issuer must be provided.';
    expect(issuesOf(() => codec.parse([{}]))).toEqual([{ type: 'value_error', loc: [0], msg }]);
    expect(issuesOf(() => codec.parse([{ full_name: [], reasons: ['superseded'] }]))).toEqual([{ type: 'value_error', loc: [0], msg }]);
  });

  test('rule: reasons are literals', () => {
    expect(issuesOf(() => codec.parse([{ crl_issuer: [uri('http://i.example')], reasons: ['superseded', 'unspecified'] }]))).toEqual([
      {
        type: 'literal_error',
        loc: [0, 'reasons', 1],
        msg:
          "Input should be 'aa_compromise', 'affiliation_changed', 'ca_compromise', 'certificate_hold', " +
          "'cessation_of_operation', 'key_compromise', 'privilege_withdrawn' or 'superseded'",
      },
    ]);
  });

  test('rule: relative_name follows the Name rules (loc inside the point)', () => {
    expect(issuesOf(() => codec.parse([{ relative_name: [{ oid: 'foo', value: 'x' }] }]))).toEqual([
      { type: 'value_error', loc: [0, 'relative_name', 0, 'oid'], msg: 'foo: Invalid object identifier' },
    ]);
  });

  test('rule: full_name items are GeneralNames (loc inside the point)', () => {
    expect(issuesOf(() => codec.parse([{ full_name: [uri('http://ok.example'), uri('nope')] }]))).toEqual([
      { type: 'value_error', loc: [0, 'full_name', 1], msg: 'URL requires scheme and network location: nope' },
    ]);
  });

  test('rule: the list of points must not be empty', () => {
    expect(issuesOf(() => codec.parse([]))).toEqual([{ type: 'value_error', loc: [], msg: 'value must not be empty' }]);
  });

  test('rule: points must be unique', () => {
    const dp = { full_name: [uri('http://a.example/crl')] };
    expect(issuesOf(() => codec.parse([dp, dp]))).toEqual([
      {
        type: 'value_error',
        loc: [],
        msg:
          "full_name=[GeneralNameModel(type='URI', value='http://a.example/crl')] relative_name=None crl_issuer=None " +
          'reasons=None: value must be unique',
      },
    ]);
  });

  test('rule: points are objects', () => {
    expect(issuesOf(() => codec.parse(['http://a.example/crl']))).toEqual([
      { type: 'model_type', loc: [0], msg: 'Input should be a valid dictionary or instance of DistributionPointModel' },
    ]);
  });
});
