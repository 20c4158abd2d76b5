import { freshestCrlCodec as codec } from '../../../lib/x509/extensions/freshest-crl';
import { checkCorpusRoundTrips, cleanupOpenssl, issuesOf, opensslExtension } from './extension-fixtures';

afterAll(cleanupOpenssl);

const uri = (value: string) => ({ type: 'URI', value });

describe('freshest_crl codec', () => {
  test('envelope facts of models.md §5 (must be non-critical)', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'freshest_crl',
      '2.5.29.46',
      false,
      false,
      true,
    ]);
  });

  test('every corpus Freshest CRL round-trips byte for byte and decodes to its JSON', () => {
    expect(checkCorpusRoundTrips(codec)).toBeGreaterThanOrEqual(1);
  });

  test('agrees with openssl', () => {
    const der = opensslExtension(
      '2.5.29.46',
      'freshestCRL = dp1',
      '[dp1]\nfullname = URI:http://delta.example/crl\nreasons = superseded\n',
    );
    const expected = [{ full_name: [uri('http://delta.example/crl')], relative_name: null, crl_issuer: null, reasons: ['superseded'] }];
    expect(codec.decode(der)).toEqual(expected);
    expect(codec.encode(codec.parse(expected)).toString('hex')).toBe(der.toString('hex'));
  });

  test('rule: same distribution point rules as crl_distribution_points', () => {
    expect(issuesOf(() => codec.parse([{ crl_issuer: [] }]))).toEqual([
      { type: 'value_error', loc: [0], msg: 'either full_name, relative_name or crl_issuer must be provided.' },
    ]);
  });
});
