import { execFileSync } from 'child_process';
import * as asn1 from '../../lib/x509/asn1';
import { Node } from '../../lib/x509/asn1';
import { X509Error } from '../../lib/x509/errors';
import { decodeName, encodeName } from '../../lib/x509/name';
import { formatRfc4514, parseRfc4514 } from '../../lib/x509/rfc4514';
import { Name } from '../../lib/x509/types';
import { loadCorpus, pemToDer } from '../helpers/corpus';

/** openssl's own (non-reversed) RFC 2253 rendering of a certificate's subject and issuer. */
function opensslNames(der: Buffer): { subject: string; issuer: string } {
  const out = execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-subject', '-issuer', '-nameopt', 'RFC2253,-dn_rev,-esc_msb'], {
    input: der,
  }).toString();
  const line = (key: string) =>
    out
      .split('\n')
      .find((l) => l.startsWith(key + '='))!
      .slice(key.length + 1);
  return { subject: line('subject'), issuer: line('issuer') };
}

/** openssl's short names where ours (the reference's) differ. */
const OPENSSL_KEYWORDS: Record<string, string> = {
  jurisdictionC: 'jurisdictionCountryName',
  jurisdictionST: 'jurisdictionStateOrProvinceName',
  jurisdictionL: 'jurisdictionLocalityName',
  street: 'STREET',
  SN: 'surname',
  GN: 'givenName',
};

function fromOpenssl(text: string): string {
  // Keywords follow the start or an unescaped ",".
  return text.replace(/(^|(?<!\\),)([A-Za-z][A-Za-z0-9-]*)=/g, (m, sep: string, kw: string) =>
    OPENSSL_KEYWORDS[kw] ? `${sep}${OPENSSL_KEYWORDS[kw]}=` : m,
  );
}

function tbsParts(der: Buffer): { cert: Node[]; tbs: Node[]; subjectIndex: number } {
  const cert = asn1.readSequence(asn1.parseDer(der), 'cert');
  const tbs = asn1.readSequence(cert[0], 'tbs');
  return { cert, tbs, subjectIndex: asn1.contextTag(tbs[0]) === 0 ? 5 : 4 };
}

/** A certificate whose subject is replaced by `name` (signature no longer valid; openssl does not care). */
function withSubject(template: Buffer, name: Name): Buffer {
  const { cert, tbs, subjectIndex } = tbsParts(template);
  const newTbs = [...tbs];
  newTbs[subjectIndex] = encodeName(name);
  return asn1.toDer(asn1.seq([asn1.seq(newTbs), ...cert.slice(1)]));
}

function validationMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(X509Error);
    expect((e as X509Error).code).toBe('validation');
    return (e as X509Error).message;
  }
  throw new Error('expected a validation error');
}

const corpus = loadCorpus();

describe('formatRfc4514', () => {
  it('matches openssl (RFC 2253 escaping, certificate order) on every corpus subject and issuer', () => {
    for (const e of corpus) {
      const der = pemToDer(e.pem);
      const { tbs, subjectIndex } = tbsParts(der);
      const expected = opensslNames(der);
      expect({ cert: e.name, subject: formatRfc4514(decodeName(tbs[subjectIndex])) }).toEqual({
        cert: e.name,
        subject: fromOpenssl(expected.subject),
      });
      expect({ cert: e.name, issuer: formatRfc4514(decodeName(tbs[subjectIndex - 2])) }).toEqual({
        cert: e.name,
        issuer: fromOpenssl(expected.issuer),
      });
    }
  });

  const tricky: Name = [
    { oid: '2.5.4.6', value: 'AT' },
    { oid: '2.5.4.10', value: 'a,b+c"d<e>f;g=h\\i' },
    { oid: '2.5.4.11', value: ' lead' },
    { oid: '2.5.4.11', value: '#hash' },
    { oid: '2.5.4.11', value: 'mid # and  spaces' },
    { oid: '2.5.4.11', value: ' ' },
    { oid: '2.5.4.7', value: 'back\\ ' },
    { oid: '2.5.4.3', value: 'trail ' },
    { oid: '1.2.840.113549.1.9.1', value: 'u@x.com' },
    { oid: '2.5.4.5', value: '123' },
    { oid: '1.3.6.1.4.1.311.60.2.1.3', value: 'DE' },
    { oid: '2.5.4.9', value: 'ünï 😀' },
    { oid: '0.9.2342.19200300.100.1.25', value: 'example' },
    { oid: '0.9.2342.19200300.100.1.1', value: 'uid' },
  ];

  it('escapes special characters, leading "#"/space and trailing space exactly like openssl', () => {
    const template = pemToDer(corpus[0].pem);
    const expected = fromOpenssl(opensslNames(withSubject(template, tricky)).subject);
    expect(formatRfc4514(tricky)).toBe(expected);
  });

  it('writes x500UniqueIdentifier as #hex of its bytes and unknown OIDs dotted', () => {
    expect(
      formatRfc4514([
        { oid: '2.5.4.45', value: 'AAEC/w==' },
        { oid: '1.2.3.4', value: 'x' },
        { oid: '2.5.4.4', value: 's' },
      ]),
    ).toBe('x500UniqueIdentifier=#000102ff,1.2.3.4=x,surname=s');
    expect(formatRfc4514([])).toBe('');
  });

  it('is inverted by parseRfc4514', () => {
    expect(parseRfc4514(formatRfc4514(tricky))).toEqual(tricky);
    for (const e of corpus) expect(parseRfc4514(formatRfc4514(e.facts.subject))).toEqual(e.facts.subject);
    const uid: Name = [{ oid: '2.5.4.45', value: 'AAEC/w==' }];
    expect(parseRfc4514(formatRfc4514(uid))).toEqual(uid);
  });
});

describe('parseRfc4514', () => {
  it('keeps the order as written (cli.md: natural order) and maps keywords and aliases', () => {
    expect(parseRfc4514('C=AT,ST=Vienna,O=Example,CN=ca.example.com')).toEqual([
      { oid: '2.5.4.6', value: 'AT' },
      { oid: '2.5.4.8', value: 'Vienna' },
      { oid: '2.5.4.10', value: 'Example' },
      { oid: '2.5.4.3', value: 'ca.example.com' },
    ]);
    expect(parseRfc4514('commonName=x,emailAddress=a@b.c,2.5.4.97=VATAT-1,uid=u')).toEqual([
      { oid: '2.5.4.3', value: 'x' },
      { oid: '1.2.840.113549.1.9.1', value: 'a@b.c' },
      { oid: '2.5.4.97', value: 'VATAT-1' },
      { oid: '0.9.2342.19200300.100.1.1', value: 'u' },
    ]);
    expect(parseRfc4514('cn=lower,street=s')).toEqual([
      { oid: '2.5.4.3', value: 'lower' },
      { oid: '2.5.4.9', value: 's' },
    ]);
    expect(parseRfc4514('')).toEqual([]);
  });

  it('unescapes \\, \\+ \\# \\  and UTF-8 hex pairs, and flattens multi-valued RDNs', () => {
    expect(parseRfc4514('O=a\\,b\\+c\\"d\\<e\\>f\\;g=h\\\\i,OU=\\#x,OU=\\ y\\ ,CN=caf\\C3\\A9 \\E2\\82\\AC')).toEqual([
      { oid: '2.5.4.10', value: 'a,b+c"d<e>f;g=h\\i' },
      { oid: '2.5.4.11', value: '#x' },
      { oid: '2.5.4.11', value: ' y ' },
      { oid: '2.5.4.3', value: 'café €' },
    ]);
    expect(parseRfc4514('CN=a+O=b,C=AT')).toEqual([
      { oid: '2.5.4.3', value: 'a' },
      { oid: '2.5.4.10', value: 'b' },
      { oid: '2.5.4.6', value: 'AT' },
    ]);
  });

  it('reads #hex values as the DER of a string', () => {
    const der = asn1.toDer(asn1.utf8('hexed')).toString('hex');
    expect(parseRfc4514(`CN=#${der},2.5.4.45=#0102`)).toEqual([
      { oid: '2.5.4.3', value: 'hexed' },
      { oid: '2.5.4.45', value: 'AQI=' },
    ]);
  });

  it('rejects what is not RFC 4514 (including the old slash form)', () => {
    for (const text of [
      '/C=AT/CN=example.com',
      'CN=a, O=b',
      'CN = a',
      'CN=a,',
      'CN=a;O=b',
      'foo=bar',
      'CN=#zz',
      'CN= lead',
      'CN=trail ',
      'CN=#unescaped',
      'CN=a"b',
      'CN=a\\q',
      'CN=\\C3',
      'CN',
    ]) {
      expect(validationMessage(() => parseRfc4514(text))).toBe(`${text}: Could not parse name as RFC 4514 string.`);
    }
  });

  it('applies the Name rules of models.md §3', () => {
    expect(validationMessage(() => parseRfc4514('CN=a,CN=b'))).toBe('Subject contains multiple "commonName" fields');
    expect(parseRfc4514('OU=a,OU=b')).toHaveLength(2);
    expect(validationMessage(() => parseRfc4514('C=AUT'))).toBe('AUT: Must have exactly two characters');
    expect(validationMessage(() => parseRfc4514('CN='))).toBe('commonName length must be >= 1 and <= 64, but it was 0');
  });
});
