import { execFileSync } from 'child_process';
import * as asn1 from '../../lib/x509/asn1';
import { Node, Type } from '../../lib/x509/asn1';
import { X509Error } from '../../lib/x509/errors';
import { decodeName, decodeRelativeName, encodeName, encodeRelativeName, firstCommonName, parseName } from '../../lib/x509/name';
import { CorpusEntry, loadCorpus, pemToDer } from '../helpers/corpus';
import { selfSignedP256 } from '../helpers/openssl-args';

/** issuer and subject Name nodes of a certificate, read without the engine under test. */
function namesOf(der: Buffer): { issuer: Node; subject: Node } {
  const cert = asn1.readSequence(asn1.parseDer(der), 'cert');
  const tbs = asn1.readSequence(cert[0], 'tbs');
  const off = asn1.contextTag(tbs[0]) === 0 ? 1 : 0;
  return { issuer: tbs[2 + off], subject: tbs[4 + off] };
}

const hex = (n: Node) => asn1.toDer(n).toString('hex');

/** Tags of every attribute value in a Name, in order. */
function valueTags(name: Node): number[] {
  return asn1
    .readSequence(name, 'Name')
    .flatMap((rdn) => asn1.readSet(rdn, 'RDN'))
    .map((atv) => asn1.readSequence(atv, 'ATV')[1].type);
}

function validationIssues(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(X509Error);
    expect((e as X509Error).code).toBe('validation');
    return (e as X509Error).issues;
  }
  throw new Error('expected a validation error');
}

describe('corpus names', () => {
  const corpus = loadCorpus();
  const byName = new Map<string, CorpusEntry>(corpus.map((e) => [e.name, e]));
  const names = corpus.map((e) => ({ e, ...namesOf(pemToDer(e.pem)) }));

  it('decodes every subject to the corpus JSON', () => {
    expect(names.length).toBeGreaterThan(20);
    for (const { e, subject } of names)
      expect({ cert: e.name, subject: decodeName(subject) }).toEqual({ cert: e.name, subject: e.facts.subject });
  });

  it("decodes every issuer to the issuing CA's subject where the corpus has that CA", () => {
    let checked = 0;
    for (const { e, issuer, subject } of names) {
      // The corpus' empty-subject certificate has an empty issuer as well (`openssl x509 -issuer`
      // prints `issuer=`), so its CA's subject is not what it carries.
      if (e.name === 'empty-subject') {
        expect(decodeName(issuer)).toEqual([]);
        continue;
      }
      const caName = (e.facts.ca ?? e.facts.parent) as string | undefined;
      const ca = caName ? byName.get(caName) : undefined;
      const expected = ca ? ca.facts.subject : hex(issuer) === hex(subject) ? e.facts.subject : undefined;
      if (!expected) continue;
      expect({ cert: e.name, issuer: decodeName(issuer) }).toEqual({ cert: e.name, issuer: expected });
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('re-encodes subjects and issuers byte for byte (cryptography default string types)', () => {
    let exact = 0;
    for (const { e, issuer, subject } of names) {
      for (const node of [subject, issuer]) {
        const decoded = decodeName(node);
        const reencoded = encodeName(decoded);
        // Third-party certificates may use other string types (e.g. PrintableString for O); for those
        // the value must survive, and the bytes must match whenever the original used our defaults.
        expect(decodeName(reencoded)).toEqual(decoded);
        if (e.keyDer || valueTags(node).join() === valueTags(reencoded).join()) {
          expect({ cert: e.name, der: hex(reencoded) }).toEqual({ cert: e.name, der: hex(node) });
          exact++;
        }
      }
    }
    expect(exact).toBeGreaterThan(40);
  });

  it('accepts every corpus subject unchanged', () => {
    for (const { e } of names) expect(parseName(e.facts.subject)).toEqual(e.facts.subject);
  });
});

describe('encoding', () => {
  it('uses the string types of the cryptography package (checked with openssl asn1parse)', () => {
    const name = parseName([
      { oid: 'C', value: 'AT' },
      { oid: 'jurisdictionCountryName', value: 'DE' },
      { oid: 'serialNumber', value: '1234' },
      { oid: 'dnQualifier', value: 'q' },
      { oid: 'emailAddress', value: 'a@b.c' },
      { oid: 'DC', value: 'example' },
      { oid: 'CN', value: 'ünicode' },
      { oid: '1.2.3.4', value: 'custom' },
      { oid: 'x500UniqueIdentifier', value: Buffer.from('uid-bytes').toString('base64') },
    ]);
    const der = asn1.toDer(encodeName(name));
    const out = execFileSync('openssl', ['asn1parse', '-inform', 'DER'], { input: der }).toString();
    const types = [...out.matchAll(/prim: (PRINTABLESTRING|IA5STRING|UTF8STRING|BIT STRING)/g)].map((m) => m[1]);
    expect(types).toEqual([
      'PRINTABLESTRING',
      'PRINTABLESTRING',
      'PRINTABLESTRING',
      'PRINTABLESTRING',
      'IA5STRING',
      'IA5STRING',
      'UTF8STRING',
      'UTF8STRING',
      'BIT STRING',
    ]);
    expect(out).toContain(':jurisdictionCountryName');
    expect(out).toContain(':x500UniqueIdentifier');
    expect(decodeName(encodeName(name))).toEqual(name);
  });

  it('falls back to UTF8String when a restricted type cannot hold the value', () => {
    const node = encodeName([
      { oid: '2.5.4.5', value: 'nö_printable' },
      { oid: '1.2.840.113549.1.9.1', value: 'ü@x' },
    ]);
    expect(valueTags(node)).toEqual([Type.UTF8, Type.UTF8]);
  });

  it('writes one attribute per RDN and flattens multi-valued RDNs when reading (openssl -multivalue-rdn)', () => {
    const pem = execFileSync('openssl', [
      ...selfSignedP256({ keyOut: '/dev/null', subject: '/O=Org/CN=a+OU=b', days: 1 }),
      '-multivalue-rdn',
    ]).toString();
    const { subject } = namesOf(pemToDer(pem));
    const rdns = asn1.readSequence(subject, 'Name');
    expect(rdns).toHaveLength(2);
    const flat = decodeName(subject);
    expect(flat.map((a) => a.oid).sort()).toEqual(['2.5.4.10', '2.5.4.11', '2.5.4.3']);
    expect(decodeRelativeName(rdns[1])).toEqual(flat.slice(1));
    expect(hex(encodeRelativeName(flat.slice(1)))).toBe(hex(rdns[1])); // DER SET OF order
    expect(asn1.readSequence(encodeName(flat), 'Name')).toHaveLength(3);
  });

  it('rejects malformed Names with a parse error', () => {
    const bad = [
      asn1.seq([asn1.set([])]),
      asn1.seq([asn1.seq([])]),
      asn1.seq([asn1.set([asn1.seq([asn1.oid('2.5.4.3')])])]),
      asn1.seq([asn1.set([asn1.seq([asn1.oid('2.5.4.3'), asn1.integer(1)])])]),
      asn1.seq([asn1.set([asn1.seq([asn1.oid('2.5.4.45'), asn1.utf8('x')])])]),
      asn1.set([]),
    ];
    for (const node of bad) expect(() => decodeName(node)).toThrow(expect.objectContaining({ code: 'parse' }));
  });

  it('reads any string type', () => {
    const node = asn1.seq([
      asn1.set([asn1.seq([asn1.oid('2.5.4.3'), asn1.string(Type.BMPSTRING, 'bmp ü')])]),
      asn1.set([asn1.seq([asn1.oid('2.5.4.10'), asn1.string(asn1.TAG_TELETEX_STRING, 'tele')])]),
      asn1.set([asn1.seq([asn1.oid('2.5.4.11'), asn1.string(asn1.TAG_UNIVERSAL_STRING, 'univ 😀')])]),
    ]);
    expect(decodeName(node)).toEqual([
      { oid: '2.5.4.3', value: 'bmp ü' },
      { oid: '2.5.4.10', value: 'tele' },
      { oid: '2.5.4.11', value: 'univ 😀' },
    ]);
  });
});

describe('validation (models.md §3)', () => {
  it('maps every alias to its dotted OID and keeps the order', () => {
    expect(
      parseName([
        { oid: 'C', value: 'AT' },
        { oid: 'ST', value: 'Vienna' },
        { oid: 'street', value: 'a' },
        { oid: 'streetAddress', value: 'b' },
        { oid: 'userid', value: 'u' },
        { oid: 'organizationIdentifier', value: 'VATAT-1' },
        { oid: 'SN', value: 's' },
        { oid: '1.2.3', value: 'unknown but valid' },
        { oid: 'CN', value: 'x' },
      ]),
    ).toEqual([
      { oid: '2.5.4.6', value: 'AT' },
      { oid: '2.5.4.8', value: 'Vienna' },
      { oid: '2.5.4.9', value: 'a' },
      { oid: '2.5.4.9', value: 'b' },
      { oid: '0.9.2342.19200300.100.1.1', value: 'u' },
      { oid: '2.5.4.97', value: 'VATAT-1' },
      { oid: '2.5.4.4', value: 's' },
      { oid: '1.2.3', value: 'unknown but valid' },
      { oid: '2.5.4.3', value: 'x' },
    ]);
    expect(parseName([])).toEqual([]);
  });

  it('rejects invalid OIDs (aliases are case-sensitive)', () => {
    for (const oid of ['foo', 'cn', '3.1', '1.40', '1.02', '1', '']) {
      expect(validationIssues(() => parseName([{ oid, value: 'x' }]))).toEqual([
        { type: 'value_error', loc: [0, 'oid'], msg: `${oid}: Invalid object identifier` },
      ]);
    }
  });

  it('requires two characters for countryName and jurisdictionCountryName', () => {
    expect(
      validationIssues(() =>
        parseName([
          { oid: 'CN', value: 'x' },
          { oid: 'C', value: 'AUT' },
        ]),
      ),
    ).toEqual([{ type: 'value_error', loc: [1], msg: 'AUT: Must have exactly two characters' }]);
    expect(validationIssues(() => parseName([{ oid: '1.3.6.1.4.1.311.60.2.1.3', value: 'A' }]))[0].msg).toBe(
      'A: Must have exactly two characters',
    );
  });

  it('limits commonName to 1..64 characters (code points)', () => {
    expect(parseName([{ oid: 'CN', value: '😀'.repeat(64) }])).toHaveLength(1);
    for (const [value, n] of [
      ['', 0],
      ['x'.repeat(65), 65],
    ] as const) {
      expect(validationIssues(() => parseName([{ oid: 'commonName', value }]))).toEqual([
        { type: 'value_error', loc: [0], msg: `commonName length must be >= 1 and <= 64, but it was ${n}` },
      ]);
    }
  });

  it('rejects duplicates except domainComponent, organizationalUnitName and street', () => {
    expect(
      parseName([
        { oid: 'OU', value: 'a' },
        { oid: 'OU', value: 'b' },
        { oid: 'DC', value: 'a' },
        { oid: 'DC', value: 'b' },
      ]),
    ).toHaveLength(4);
    expect(
      validationIssues(() =>
        parseName([
          { oid: 'CN', value: 'a' },
          { oid: '2.5.4.3', value: 'b' },
        ]),
      ),
    ).toEqual([{ type: 'value_error', loc: [], msg: 'attribute of type commonName must not occur more then once in a name.' }]);
    expect(
      validationIssues(() =>
        parseName([
          { oid: 'O', value: 'a' },
          { oid: 'O', value: 'b' },
        ]),
      )[0].msg,
    ).toBe('attribute of type organizationName must not occur more then once in a name.');
    expect(
      validationIssues(() =>
        parseName([
          { oid: '1.2.3', value: 'a' },
          { oid: '1.2.3', value: 'b' },
        ]),
      )[0].msg,
    ).toBe('attribute of type 1.2.3 must not occur more then once in a name.');
  });

  it('reports per-attribute problems of all attributes, and duplicates only when those pass', () => {
    expect(validationIssues(() => parseName([{ oid: 'CN', value: '' }, { oid: 'CN', value: 'x' }, { value: 1 }, 'x']))).toEqual([
      { type: 'value_error', loc: [0], msg: 'commonName length must be >= 1 and <= 64, but it was 0' },
      { type: 'missing', loc: [2, 'oid'], msg: 'Field required' },
      { type: 'string_type', loc: [2, 'value'], msg: 'Input should be a valid string' },
      { type: 'model_type', loc: [3], msg: 'Input should be a valid dictionary or instance of NameAttributeModel' },
    ]);
    expect(validationIssues(() => parseName('CN=x'))).toEqual([{ type: 'list_type', loc: [], msg: 'Input should be a valid list' }]);
    expect(validationIssues(() => parseName([{ oid: 'CN', value: '\ud800' }]))[0].type).toBe('string_unicode');
  });

  it('takes x500UniqueIdentifier as base64 and writes the decoded bytes as a BIT STRING', () => {
    const name = parseName([{ oid: 'x500UniqueIdentifier', value: 'AAEC/w==' }]);
    const atv = asn1.readSequence(asn1.readSet(asn1.readSequence(encodeName(name), 'n')[0], 'r')[0], 'a');
    expect(asn1.readBitString(atv[1])).toEqual({ bytes: Buffer.from([0, 1, 2, 255]), unusedBits: 0 });
    expect(decodeName(encodeName(name))).toEqual([{ oid: '2.5.4.45', value: 'AAEC/w==' }]);
    expect(validationIssues(() => parseName([{ oid: 'x500UniqueIdentifier', value: 'not base64!' }]))[0].msg).toBe(
      'not base64!: Not a valid base64 string',
    );
  });

  it('finds the first common name', () => {
    expect(
      firstCommonName([
        { oid: '2.5.4.10', value: 'o' },
        { oid: '2.5.4.3', value: 'a' },
        { oid: '2.5.4.3', value: 'b' },
      ]),
    ).toBe('a');
    expect(firstCommonName([{ oid: '2.5.4.10', value: 'o' }])).toBe('');
  });
});
