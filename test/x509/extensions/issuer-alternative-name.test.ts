import { issuerAlternativeNameCodec as codec } from '../../../lib/x509/extensions/issuer-alternative-name';
import { checkCorpusRoundTrips, cleanupOpenssl, issuesOf, opensslExtension } from './extension-fixtures';

afterAll(cleanupOpenssl);

describe('issuer_alternative_name codec', () => {
  test('envelope facts of models.md §5', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'issuer_alternative_name',
      '2.5.29.18',
      false,
      null,
      true,
    ]);
  });

  test('every corpus IAN round-trips byte for byte and decodes to its JSON', () => {
    expect(checkCorpusRoundTrips(codec)).toBeGreaterThanOrEqual(2);
  });

  test('agrees with openssl', () => {
    const der = opensslExtension('2.5.29.18', 'issuerAltName = URI:http://ian.example/, email:ca@ian.example');
    const expected = [
      { type: 'URI', value: 'http://ian.example/' },
      { type: 'email', value: 'ca@ian.example' },
    ];
    expect(codec.decode(der)).toEqual(expected);
    expect(codec.encode(codec.parse(expected)).toString('hex')).toBe(der.toString('hex'));
  });

  test('rule: the list must not be empty', () => {
    expect(issuesOf(() => codec.parse([]))).toEqual([{ type: 'value_error', loc: [], msg: 'value must not be empty' }]);
  });

  test('rule: an element error has the element index as loc', () => {
    expect(issuesOf(() => codec.parse([{ type: 'URI', value: 'example.com' }]))).toEqual([
      { type: 'value_error', loc: [0], msg: 'URL requires scheme and network location: example.com' },
    ]);
  });
});
