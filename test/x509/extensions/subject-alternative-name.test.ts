import { subjectAlternativeNameCodec as codec } from '../../../lib/x509/extensions/subject-alternative-name';
import { checkCorpusRoundTrips, cleanupOpenssl, issuesOf, opensslExtension } from './extension-fixtures';

afterAll(cleanupOpenssl);

describe('subject_alternative_name codec', () => {
  test('envelope facts of models.md §5', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'subject_alternative_name',
      '2.5.29.17',
      false,
      null,
      true,
    ]);
  });

  test('every corpus SAN round-trips byte for byte and decodes to its JSON', () => {
    expect(checkCorpusRoundTrips(codec)).toBeGreaterThanOrEqual(15);
  });

  test('reads and writes every general name type as openssl does', () => {
    const der = opensslExtension(
      '2.5.29.17',
      'subjectAltName = DNS:a.example.com, IP:192.0.2.1, IP:2001:db8::1, URI:https://x.example/p, ' +
        'email:u@x.example, RID:1.2.3.4, dirName:dir_sect, otherName:1.3.6.1.4.1.311.20.2.3;UTF8:upn@x.example',
      '[dir_sect]\nC = AT\nCN = dir.example\n',
    );
    const expected = [
      { type: 'DNS', value: 'a.example.com' },
      { type: 'IP', value: '192.0.2.1' },
      { type: 'IP', value: '2001:db8::1' },
      { type: 'URI', value: 'https://x.example/p' },
      { type: 'email', value: 'u@x.example' },
      { type: 'RID', value: '1.2.3.4' },
      {
        type: 'dirName',
        value: [
          { oid: '2.5.4.6', value: 'AT' },
          { oid: '2.5.4.3', value: 'dir.example' },
        ],
      },
      { type: 'otherName', value: { oid: '1.3.6.1.4.1.311.20.2.3', type: 'UTF8String', value: 'upn@x.example' } },
    ];
    expect(codec.decode(der)).toEqual(expected);
    expect(codec.encode(codec.parse(expected)).toString('hex')).toBe(der.toString('hex'));
  });

  test('input is normalised (IDNA) before it is written', () => {
    const value = codec.parse([{ type: 'DNS', value: 'exämple.com' }]);
    expect(value).toEqual([{ type: 'DNS', value: 'xn--exmple-cua.com' }]);
    expect(codec.decode(codec.encode(value))).toEqual(value);
  });

  test('rule: the list must not be empty', () => {
    expect(issuesOf(() => codec.parse([]))).toEqual([{ type: 'value_error', loc: [], msg: 'value must not be empty' }]);
  });

  test('rule: names must be unique after normalisation', () => {
    const issues = issuesOf(() =>
      codec.parse([
        { type: 'DNS', value: 'xn--exmple-cua.com' },
        { type: 'DNS', value: 'exämple.com' },
      ]),
    );
    expect(issues).toEqual([{ type: 'value_error', loc: [], msg: "type='DNS' value='xn--exmple-cua.com': value must be unique" }]);
  });

  test('rule: the value is a list', () => {
    expect(issuesOf(() => codec.parse({ type: 'DNS', value: 'a.example' }))).toEqual([
      { type: 'list_type', loc: [], msg: 'Input should be a valid list' },
    ]);
  });

  test('rule: a bad element is reported at its index (reference loc `value,<i>`)', () => {
    const issues = issuesOf(() =>
      codec.parse([
        { type: 'DNS', value: 'ok.example' },
        { type: 'IP', value: '300.1.1.1' },
      ]),
    );
    expect(issues).toEqual([{ type: 'value_error', loc: [1], msg: '300.1.1.1: Could not parse IP address' }]);
  });
});
