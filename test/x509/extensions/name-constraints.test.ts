import * as asn1 from '../../../lib/x509/asn1';
import { nameConstraintsCodec as codec } from '../../../lib/x509/extensions/name-constraints';
import { encodeGeneralName } from '../../../lib/x509/general-name';
import { checkCorpusRoundTrips, cleanupOpenssl, issuesOf, opensslExtension } from './extension-fixtures';

afterAll(cleanupOpenssl);

const OID = '2.5.29.30';
const dns = (value: string) => ({ type: 'DNS', value });

describe('name_constraints codec', () => {
  test('envelope facts of models.md §5 (must be critical, CA certs only)', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'name_constraints',
      OID,
      true,
      true,
      false,
    ]);
  });

  test('every corpus name constraint round-trips byte for byte and decodes to its JSON', () => {
    expect(checkCorpusRoundTrips(codec)).toBeGreaterThanOrEqual(3);
  });

  test('agrees with openssl (permitted and excluded, IP networks)', () => {
    const der = opensslExtension(
      OID,
      'nameConstraints = critical, permitted;DNS:.example.com, permitted;email:ca@example.com, excluded;IP:10.0.0.0/255.0.0.0, excluded;IP:2001:db8::/ffff:ffff::',
    );
    const expected = {
      permitted_subtrees: [dns('.example.com'), { type: 'email', value: 'ca@example.com' }],
      excluded_subtrees: [
        { type: 'IP', value: '10.0.0.0/8' },
        { type: 'IP', value: '2001:db8::/32' },
      ],
    };
    expect(codec.decode(der)).toEqual(expected);
    expect(codec.encode(codec.parse(expected)).toString('hex')).toBe(der.toString('hex'));
  });

  test('only one side given: the other is null and absent from DER', () => {
    const value = codec.parse({ excluded_subtrees: [dns('.mil')] });
    expect(value).toEqual({ permitted_subtrees: null, excluded_subtrees: [dns('.mil')] });
    expect(Object.keys(value)).toEqual(['permitted_subtrees', 'excluded_subtrees']);
    // SEQUENCE { [1] { SEQUENCE { [2] ".mil" } } }
    expect(codec.encode(value).toString('hex')).toBe('300aa108300682042e6d696c');
  });

  test('minimum/maximum of a subtree are ignored when reading, as in the reference', () => {
    const subtree = asn1.seq([
      encodeGeneralName({ type: 'DNS', value: '.com' }),
      asn1.context(0, false, Buffer.from([1])),
      asn1.context(1, false, Buffer.from([2])),
    ]);
    const der = asn1.toDer(asn1.seq([asn1.context(0, true, [subtree])]));
    expect(codec.decode(der)).toEqual({ permitted_subtrees: [dns('.com')], excluded_subtrees: null });
  });

  test('rule: at least one side must not be None', () => {
    const msg = 'At least one of permitted_subtrees and excluded_subtrees must not be None';
    expect(issuesOf(() => codec.parse({}))).toEqual([{ type: 'value_error', loc: [], msg }]);
    expect(issuesOf(() => codec.parse({ permitted_subtrees: null, excluded_subtrees: null }))).toEqual([
      { type: 'value_error', loc: [], msg },
    ]);
  });

  test('rule: a given list must not be empty', () => {
    expect(issuesOf(() => codec.parse({ permitted_subtrees: [] }))).toEqual([
      { type: 'value_error', loc: ['permitted_subtrees'], msg: 'value must not be empty' },
    ]);
  });

  test('rule: a list must be unique', () => {
    expect(issuesOf(() => codec.parse({ excluded_subtrees: [dns('.net'), dns('.net')] }))).toEqual([
      { type: 'value_error', loc: ['excluded_subtrees'], msg: "type='DNS' value='.net': value must be unique" },
    ]);
  });

  test('rule: problems of both lists are collected, loc inside the list', () => {
    const issues = issuesOf(() => codec.parse({ permitted_subtrees: [{ type: 'IP', value: 'x' }], excluded_subtrees: 'nope' }));
    expect(issues).toEqual([
      { type: 'value_error', loc: ['permitted_subtrees', 0], msg: 'x: Could not parse IP address' },
      { type: 'list_type', loc: ['excluded_subtrees'], msg: 'Input should be a valid list' },
    ]);
  });

  test('rule: the value is an object', () => {
    expect(issuesOf(() => codec.parse([dns('.com')]))).toEqual([
      { type: 'model_type', loc: [], msg: 'Input should be a valid dictionary or instance of NameConstraintsValueModel' },
    ]);
  });
});
