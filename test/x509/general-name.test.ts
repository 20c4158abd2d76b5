import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { domainToASCII } from 'url';
import fc from 'fast-check';
import * as asn1 from '../../lib/x509/asn1';
import { Node } from '../../lib/x509/asn1';
import { X509Error } from '../../lib/x509/errors';
import {
  canonicalIp,
  decodeGeneralName,
  decodeGeneralNameList,
  decodeGeneralNames,
  encodeGeneralName,
  encodeGeneralNames,
  parseGeneralName,
  parseGeneralNames,
} from '../../lib/x509/general-name';
import { encodeDomain, punycodeDecode, punycodeEncode } from '../../lib/x509/idna';
import { loadCorpus, pemToDer } from '../helpers/corpus';

// ---------------------------------------------------------------------------------------------------
// Helpers: walk a certificate's extensions to every GeneralName and pair it with the corpus JSON.

function extensionsOf(der: Buffer): { oid: string; value: Node }[] {
  const cert = asn1.readSequence(asn1.parseDer(der), 'cert');
  const tbs = asn1.readSequence(cert[0], 'tbs');
  const ext = tbs.find((n) => asn1.contextTag(n) === 3);
  if (!ext) return [];
  return asn1.readSequence(asn1.children(ext, 'ext')[0], 'exts').map((e) => {
    const parts = asn1.readSequence(e, 'ext');
    return { oid: asn1.readOid(parts[0]), value: asn1.parseDer(asn1.readOctets(parts[parts.length - 1])) };
  });
}

interface Pair {
  where: string;
  node: Node;
  json: unknown;
}
interface ListPair {
  where: string;
  /** The GeneralNames node (universal or IMPLICIT-tagged SEQUENCE OF). */
  node: Node;
  json: unknown[];
}

const EXTENSION_TYPES: Record<string, string> = {
  '2.5.29.17': 'subject_alternative_name',
  '2.5.29.18': 'issuer_alternative_name',
  '1.3.6.1.5.5.7.1.1': 'authority_information_access',
  '1.3.6.1.5.5.7.1.11': 'subject_information_access',
  '2.5.29.31': 'crl_distribution_points',
  '2.5.29.46': 'freshest_crl',
  '2.5.29.30': 'name_constraints',
  '2.5.29.35': 'authority_key_identifier',
  '1.3.36.8.3.3': 'admissions',
};

function collectGeneralNames(der: Buffer, extensions: { type: string; value: unknown }[], name: string) {
  const single: Pair[] = [];
  const lists: ListPair[] = [];
  const json = (type: string) => extensions.find((e) => e.type === type)?.value as never;
  for (const { oid, value } of extensionsOf(der)) {
    const type = EXTENSION_TYPES[oid];
    if (!type) continue;
    const where = `${name} ${type}`;
    const v = json(type) as unknown;
    if (type.endsWith('alternative_name')) {
      lists.push({ where, node: value, json: v as unknown[] });
    } else if (type.endsWith('information_access')) {
      asn1.readSequence(value, 'AIA').forEach((ad, i) => {
        const loc = asn1.readSequence(ad, 'AD')[1];
        single.push({ where: `${where}[${i}]`, node: loc, json: (v as { access_location: unknown }[])[i].access_location });
      });
    } else if (type === 'crl_distribution_points' || type === 'freshest_crl') {
      asn1.readSequence(value, 'CRLDP').forEach((dp, i) => {
        const dpJson = (v as { full_name: unknown[] | null; crl_issuer: unknown[] | null }[])[i];
        for (const part of asn1.children(dp, 'DP')) {
          if (asn1.contextTag(part) === 0) {
            const dpName = asn1.children(part, 'DPName')[0];
            if (asn1.contextTag(dpName) === 0) lists.push({ where: `${where}[${i}].full_name`, node: dpName, json: dpJson.full_name! });
          } else if (asn1.contextTag(part) === 2) {
            lists.push({ where: `${where}[${i}].crl_issuer`, node: part, json: dpJson.crl_issuer! });
          }
        }
      });
    } else if (type === 'name_constraints') {
      const nc = v as { permitted_subtrees: unknown[] | null; excluded_subtrees: unknown[] | null };
      for (const part of asn1.children(value, 'NC')) {
        const key = asn1.contextTag(part) === 0 ? 'permitted_subtrees' : 'excluded_subtrees';
        asn1.children(part, 'subtrees').forEach((subtree, i) => {
          single.push({ where: `${where}.${key}[${i}]`, node: asn1.readSequence(subtree, 'GS')[0], json: nc[key]![i] });
        });
      }
    } else if (type === 'authority_key_identifier') {
      const issuer = asn1.children(value, 'AKI').find((n) => asn1.contextTag(n) === 1);
      if (issuer) lists.push({ where, node: issuer, json: (v as { authority_cert_issuer: unknown[] }).authority_cert_issuer });
    } else if (type === 'admissions') {
      const adm = v as { authority: unknown; admissions: { admission_authority: unknown }[] };
      const parts = asn1.readSequence(value, 'AdmissionSyntax');
      if (parts.length === 2) single.push({ where: `${where}.authority`, node: parts[0], json: adm.authority });
      asn1.readSequence(parts[parts.length - 1], 'contents').forEach((a, i) => {
        const authority = asn1.children(a, 'Admissions').find((n) => asn1.contextTag(n) === 0);
        if (authority) {
          single.push({
            where: `${where}.admissions[${i}]`,
            node: asn1.children(authority, 'aa')[0],
            json: adm.admissions[i].admission_authority,
          });
        }
      });
    }
  }
  return { single, lists };
}

/** Every `{type, value}` general name anywhere in a corpus JSON document. */
function generalNamesInJson(doc: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(doc)) doc.forEach((d) => generalNamesInJson(d, out));
  else if (doc && typeof doc === 'object') {
    const o = doc as Record<string, unknown>;
    const keys = Object.keys(o).sort().join();
    if (keys === 'type,value' && ['DNS', 'email', 'URI', 'IP', 'RID', 'dirName', 'otherName'].includes(o.type as string)) {
      out.push(o);
    }
    Object.values(o).forEach((d) => generalNamesInJson(d, out));
  }
  return out;
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

function message(fn: () => unknown): string {
  const issues = validationIssues(fn);
  expect(issues).toHaveLength(1);
  return issues[0].msg;
}

const der = (n: Node) => asn1.toDer(n).toString('hex');

// ---------------------------------------------------------------------------------------------------

describe('corpus general names', () => {
  const corpus = loadCorpus();
  const all = corpus.map((e) => ({ e, ...collectGeneralNames(pemToDer(e.pem), e.facts.extensions, e.name) }));
  const singles = all.flatMap((a) => a.single);
  const lists = all.flatMap((a) => a.lists);

  it('finds the general names of the corpus', () => {
    expect(singles.length).toBeGreaterThan(40);
    expect(lists.length).toBeGreaterThan(30);
    const types = new Set([
      ...singles.map((p) => (p.json as { type: string }).type),
      ...lists.flatMap((l) => l.json.map((j) => (j as { type: string }).type)),
    ]);
    expect([...types].sort()).toEqual(['DNS', 'IP', 'URI']);
  });

  it('decodes each general name to the corpus JSON and re-encodes it byte for byte', () => {
    for (const { where, node, json } of singles) {
      const decoded = decodeGeneralName(node);
      expect({ where, decoded }).toEqual({ where, decoded: json });
      expect({ where, der: der(encodeGeneralName(decoded)) }).toEqual({ where, der: der(node) });
    }
  });

  it('decodes each GeneralNames list and re-encodes it with the same tag', () => {
    for (const { where, node, json } of lists) {
      const decoded = decodeGeneralNameList(asn1.children(node, where));
      expect({ where, decoded }).toEqual({ where, decoded: json });
      const encoded = encodeGeneralNames(decoded);
      const tagged = asn1.contextTag(node) >= 0 ? asn1.implicit(asn1.contextTag(node), encoded) : encoded;
      expect({ where, der: der(tagged) }).toEqual({ where, der: der(node) });
      if (asn1.contextTag(node) < 0) expect(decodeGeneralNames(node)).toEqual(json);
    }
  });

  it('accepts every general name of the corpus JSON unchanged (normalisation is idempotent)', () => {
    const names = corpus.flatMap((e) => generalNamesInJson(e.facts));
    expect(names.length).toBeGreaterThan(100);
    for (const gn of names) expect(parseGeneralName(gn)).toEqual(gn);
  });
});

describe('openssl-made general names (all otherName types, RID, IP networks, dirName)', () => {
  let tmp: string;
  let san: Node[];
  let nameConstraints: Node;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gn-test-'));
    const cfg = `
[req]
distinguished_name = dn
[dn]
[ext]
subjectAltName = @alt
nameConstraints = permitted;IP:10.0.0.0/255.0.0.0, permitted;IP:2001:db8::/ffff:ffff::, excluded;DNS:.example.net, excluded;dirName:dir_sect
[alt]
otherName.1 = 1.2.3.4;UTF8:hello world
otherName.2 = 1.2.3.5;UNIVERSALSTRING:univ
otherName.3 = 1.2.3.6;IA5STRING:ia5 text
otherName.4 = 1.2.3.7;BOOLEAN:TRUE
otherName.5 = 1.2.3.8;NULL:
otherName.6 = 1.2.3.9;INTEGER:0x1234567890ABCDEF1234
otherName.7 = 1.2.3.10;FORMAT:HEX,OCTETSTRING:deadBEEF00
otherName.8 = 1.2.3.11;UTCTIME:200102030405Z
otherName.9 = 1.2.3.12;GENERALIZEDTIME:21000102030405Z
otherName.10 = 1.2.3.13;INTEGER:-5
RID.1 = 1.2.3.4.5
IP.1 = 192.0.2.1
IP.2 = 2001:db8:0:0:1:0:0:1
dirName.1 = dir_sect
email.1 = user@example.com
[dir_sect]
C = AT
O = Example
CN = dir.example.com
`;
    fs.writeFileSync(path.join(tmp, 'cfg'), cfg);
    execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', path.join(tmp, 'k.pem')]);
    execFileSync('openssl', [
      'req',
      '-new',
      '-x509',
      '-key',
      path.join(tmp, 'k.pem'),
      '-subj',
      '/CN=x',
      '-config',
      path.join(tmp, 'cfg'),
      '-extensions',
      'ext',
      '-outform',
      'DER',
      '-out',
      path.join(tmp, 'c.der'),
    ]);
    const exts = extensionsOf(fs.readFileSync(path.join(tmp, 'c.der')));
    san = asn1.readSequence(exts.find((e) => e.oid === '2.5.29.17')!.value, 'SAN');
    nameConstraints = exts.find((e) => e.oid === '2.5.29.30')!.value;
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  // What the API accepts for each openssl SAN entry, and what it must produce.
  const cases: [input: unknown, output: unknown][] = [
    [
      { type: 'otherName', value: { oid: '1.2.3.4', type: 'UTF8', value: 'hello world' } },
      { type: 'otherName', value: { oid: '1.2.3.4', type: 'UTF8String', value: 'hello world' } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.5', type: 'UNIV', value: 'univ' } },
      { type: 'otherName', value: { oid: '1.2.3.5', type: 'UNIVERSALSTRING', value: 'univ' } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.6', type: 'IA5', value: 'ia5 text' } },
      { type: 'otherName', value: { oid: '1.2.3.6', type: 'IA5STRING', value: 'ia5 text' } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.7', type: 'BOOL', value: true } },
      { type: 'otherName', value: { oid: '1.2.3.7', type: 'BOOLEAN', value: true } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.8', type: 'NULL', value: null } },
      { type: 'otherName', value: { oid: '1.2.3.8', type: 'NULL', value: null } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.9', type: 'INT', value: '0x1234567890ABCDEF1234' } },
      { type: 'otherName', value: { oid: '1.2.3.9', type: 'INTEGER', value: 0x1234567890abcdef1234n } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.10', type: 'OctetString', value: 'deadbeef00' } },
      { type: 'otherName', value: { oid: '1.2.3.10', type: 'OctetString', value: 'DEADBEEF00' } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.11', type: 'UTC', value: '2020-01-02T04:04:05+01:00' } },
      { type: 'otherName', value: { oid: '1.2.3.11', type: 'UTCTIME', value: '2020-01-02T03:04:05Z' } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.12', type: 'GENTIME', value: '2100-01-02T03:04:05Z' } },
      { type: 'otherName', value: { oid: '1.2.3.12', type: 'GENERALIZEDTIME', value: '2100-01-02T03:04:05Z' } },
    ],
    [
      { type: 'otherName', value: { oid: '1.2.3.13', type: 'INTEGER', value: -5 } },
      { type: 'otherName', value: { oid: '1.2.3.13', type: 'INTEGER', value: -5 } },
    ],
    [
      { type: 'RID', value: '1.2.3.4.5' },
      { type: 'RID', value: '1.2.3.4.5' },
    ],
    [
      { type: 'IP', value: '192.0.2.1' },
      { type: 'IP', value: '192.0.2.1' },
    ],
    [
      { type: 'IP', value: '2001:DB8:0:0:1:0:0:1' },
      { type: 'IP', value: '2001:db8::1:0:0:1' },
    ],
    [
      {
        type: 'dirName',
        value: [
          { oid: 'C', value: 'AT' },
          { oid: 'O', value: 'Example' },
          { oid: 'CN', value: 'dir.example.com' },
        ],
      },
      {
        type: 'dirName',
        value: [
          { oid: '2.5.4.6', value: 'AT' },
          { oid: '2.5.4.10', value: 'Example' },
          { oid: '2.5.4.3', value: 'dir.example.com' },
        ],
      },
    ],
    [
      { type: 'email', value: 'user@example.com' },
      { type: 'email', value: 'user@example.com' },
    ],
  ];

  it('decodes what openssl wrote to the expected JSON', () => {
    expect(san).toHaveLength(cases.length);
    san.forEach((node, i) => expect(decodeGeneralName(node)).toEqual(cases[i][1]));
  });

  it('encodes the validated API input to the bytes openssl wrote', () => {
    san.forEach((node, i) => {
      const parsed = parseGeneralName(cases[i][0]);
      expect(parsed).toEqual(cases[i][1]);
      // openssl writes C as PrintableString and the rest as UTF8String, as we do.
      expect(der(encodeGeneralName(parsed))).toEqual(der(node));
    });
  });

  it('reads and writes iPAddress networks (address + mask) in name constraints', () => {
    const [permitted, excluded] = asn1
      .children(nameConstraints, 'NC')
      .map((t) => asn1.children(t, 'subtrees').map((s) => asn1.readSequence(s, 'GS')[0]));
    expect(permitted.map(decodeGeneralName)).toEqual([
      { type: 'IP', value: '10.0.0.0/8' },
      { type: 'IP', value: '2001:db8::/32' },
    ]);
    expect(excluded.map(decodeGeneralName)).toEqual([
      { type: 'DNS', value: '.example.net' },
      {
        type: 'dirName',
        value: [
          { oid: '2.5.4.6', value: 'AT' },
          { oid: '2.5.4.10', value: 'Example' },
          { oid: '2.5.4.3', value: 'dir.example.com' },
        ],
      },
    ]);
    const nets = [parseGeneralName({ type: 'IP', value: '10.0.0.0/255.0.0.0' }), parseGeneralName({ type: 'IP', value: '2001:db8::/32' })];
    expect(nets.map((n) => der(encodeGeneralName(n)))).toEqual(permitted.map(der));
  });
});

describe('DER edge cases', () => {
  const ctx = (tag: number, bytes: number[]) => asn1.context(tag, false, Buffer.from(bytes));

  it('keeps host bits of a network read from a certificate so that it re-encodes identically', () => {
    const node = ctx(7, [10, 0, 0, 1, 255, 0, 0, 0]);
    expect(decodeGeneralName(node)).toEqual({ type: 'IP', value: '10.0.0.1/8' });
    expect(der(encodeGeneralName(decodeGeneralName(node)))).toBe(der(node));
  });

  it('rejects malformed iPAddress values with a parse error', () => {
    for (const bytes of [
      [1, 2, 3],
      [10, 0, 0, 0, 255, 0, 255, 0],
    ]) {
      expect(() => decodeGeneralName(ctx(7, bytes))).toThrow(expect.objectContaining({ code: 'parse' }));
    }
  });

  it('reports x400Address / ediPartyName as unsupported and unknown otherName types by tag', () => {
    expect(() => decodeGeneralName(asn1.context(3, true, [asn1.seq([])]))).toThrow(expect.objectContaining({ code: 'unsupported' }));
    expect(() => decodeGeneralName(asn1.context(5, true, [asn1.seq([])]))).toThrow(expect.objectContaining({ code: 'unsupported' }));
    const printable = asn1.context(0, true, [asn1.oid('1.2.3'), asn1.explicit(0, asn1.printable('x'))]);
    expect(() => decodeGeneralName(printable)).toThrow('19: Unknown otherName type found.');
  });

  it('rejects a universal tag where a GeneralName is expected, and truncated DER', () => {
    expect(() => decodeGeneralName(asn1.ia5('x'))).toThrow(expect.objectContaining({ code: 'parse' }));
    expect(() => asn1.parseDer(Buffer.from('a2057866', 'hex'))).toThrow(expect.objectContaining({ code: 'parse' }));
  });

  it('writes GENERALIZEDTIME with milliseconds only when present', () => {
    const gn = parseGeneralName({ type: 'otherName', value: { oid: '1.2.3', type: 'GENERALIZEDTIME', value: '2060-05-06T07:08:09.120Z' } });
    expect(gn).toEqual({ type: 'otherName', value: { oid: '1.2.3', type: 'GENERALIZEDTIME', value: '2060-05-06T07:08:09.120Z' } });
    const inner = asn1.children(asn1.children(encodeGeneralName(gn), 'on')[1], 'v')[0];
    expect(asn1.contentBytes(inner, 't').toString('latin1')).toBe('20600506070809.12Z');
    expect(decodeGeneralName(encodeGeneralName(gn))).toEqual(gn);
  });
});

describe('validation (models.md §4)', () => {
  it('IDNA-encodes DNS names, keeping a leading "*." or "."', () => {
    expect(parseGeneralName({ type: 'DNS', value: 'exämple.com' })).toEqual({ type: 'DNS', value: 'xn--exmple-cua.com' });
    expect(parseGeneralName({ type: 'DNS', value: '*.exämple.com' })).toEqual({ type: 'DNS', value: '*.xn--exmple-cua.com' });
    expect(parseGeneralName({ type: 'DNS', value: '.exämple.com' })).toEqual({ type: 'DNS', value: '.xn--exmple-cua.com' });
    expect(message(() => parseGeneralName({ type: 'DNS', value: 'test@exämple.com' }))).toBe(
      "Invalid domain: test@exämple.com: Codepoint U+0040 at position 5 of 'test@exämple' not allowed",
    );
    expect(message(() => parseGeneralName({ type: 'DNS', value: 'a..b' }))).toBe('Invalid domain: a..b: Empty Label');
    expect(message(() => parseGeneralName({ type: 'DNS', value: '' }))).toBe('Invalid domain: : Empty domain');
    expect(message(() => parseGeneralName({ type: 'DNS', value: '-x.com' }))).toBe(
      'Invalid domain: -x.com: Label must not start or end with a hyphen',
    );
    expect(message(() => parseGeneralName({ type: 'DNS', value: `${'a'.repeat(64)}.com` }))).toMatch(/Label too long$/);
  });

  it('validates e-mail addresses and IDNA-encodes their domain', () => {
    expect(parseGeneralName({ type: 'email', value: 'user@exämple.com' })).toEqual({ type: 'email', value: 'user@xn--exmple-cua.com' });
    expect(message(() => parseGeneralName({ type: 'email', value: 'x' }))).toBe('Invalid email address: x');
    expect(message(() => parseGeneralName({ type: 'email', value: '@example.com' }))).toBe('@example.com: node part is empty');
    expect(message(() => parseGeneralName({ type: 'email', value: 'a@b@exa mple.com' }))).toBe(
      "Invalid domain: exa mple.com: Codepoint U+0020 at position 4 of 'exa mple' not allowed",
    );
  });

  it('validates URIs and IDNA-encodes their host, keeping the port', () => {
    const uri = (value: string) => parseGeneralName({ type: 'URI', value });
    expect(uri('https://exämple.com/foobar')).toEqual({ type: 'URI', value: 'https://xn--exmple-cua.com/foobar' });
    expect(uri('https://exämple.com:8000/foobar')).toEqual({ type: 'URI', value: 'https://xn--exmple-cua.com:8000/foobar' });
    expect(uri('HTTP://example.com/a?b=c#d')).toEqual({ type: 'URI', value: 'http://example.com/a?b=c#d' });
    expect(uri('http://[2001:db8::1]:8080/')).toEqual({ type: 'URI', value: 'http://[2001:db8::1]:8080/' });
    expect(message(() => uri('example.com'))).toBe('URL requires scheme and network location: example.com');
    expect(message(() => uri('mailto:user@example.com'))).toBe('URL requires scheme and network location: mailto:user@example.com');
    expect(message(() => uri('http://example.com:abc/'))).toBe(
      "Invalid port: http://example.com:abc/: Port could not be cast to integer value as 'abc'",
    );
    expect(message(() => uri('http://example.com:65536/'))).toBe('Invalid port: http://example.com:65536/: Port out of range 0-65535');
    expect(message(() => uri('http://[::1/'))).toBe('Could not parse URL: http://[::1/: Invalid IPv6 URL');
  });

  it('parses IP addresses and strict networks to their canonical text', () => {
    const ip = (value: string) => (parseGeneralName({ type: 'IP', value }) as { value: string }).value;
    expect(ip('127.0.0.1')).toBe('127.0.0.1');
    expect(ip('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(ip('10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(ip('2001:DB8::/32')).toBe('2001:db8::/32');
    expect(ip('192.168.0.0/255.255.0.0')).toBe('192.168.0.0/16');
    expect(ip('2001:db8:0:1:0:0:0:0')).toBe('2001:db8:0:1::');
    expect(ip('1:0:0:1:0:0:0:1')).toBe('1:0:0:1::1'); // first of two equal runs
    for (const bad of ['300.1.1.1', '10.0.0.1/8', '1.2.3', '01.2.3.4', '::1::2', '1:2:3:4:5:6:7:8:9', '10.0.0.0/33', 'fe80::1%eth0', 'x']) {
      expect(message(() => parseGeneralName({ type: 'IP', value: bad }))).toBe(`${bad}: Could not parse IP address`);
    }
  });

  it('formats IPv6 like the WHATWG URL serialiser (same compression rule)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }), (groups) => {
        fc.pre(!(groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)); // IPv4-mapped differs
        const text = groups.map((g) => g.toString(16)).join(':');
        expect(canonicalIp(text)).toBe(new URL(`http://[${text}]/`).hostname.slice(1, -1));
      }),
      { numRuns: 300 },
    );
  });

  it('checks RIDs', () => {
    expect(parseGeneralName({ type: 'RID', value: '1.2.3' })).toEqual({ type: 'RID', value: '1.2.3' });
    expect(message(() => parseGeneralName({ type: 'RID', value: '3.1' }))).toBe('3.1: Invalid object identifier');
  });

  it('validates dirName values with the Name rules and reports the union tag in loc', () => {
    expect(
      validationIssues(() =>
        parseGeneralName({
          type: 'dirName',
          value: [
            { oid: 'foo', value: 'x' },
            { oid: 'C', value: 'AUT' },
          ],
        }),
      ),
    ).toEqual([
      { type: 'value_error', loc: ['value', 'name', 0, 'oid'], msg: 'foo: Invalid object identifier' },
      { type: 'value_error', loc: ['value', 'name', 1], msg: 'AUT: Must have exactly two characters' },
    ]);
  });

  it('reports wrong shapes the way the reference does', () => {
    expect(validationIssues(() => parseGeneralName({ type: 'FOO', value: 'x' }))).toEqual([
      { type: 'literal_error', loc: ['type'], msg: "Input should be 'email', 'URI', 'IP', 'DNS', 'RID', 'dirName' or 'otherName'" },
    ]);
    expect(validationIssues(() => parseGeneralName({ type: 'DNS', value: 5 }))).toEqual([
      { type: 'string_type', loc: ['value', 'str'], msg: 'Input should be a valid string' },
    ]);
    expect(validationIssues(() => parseGeneralName({}))).toEqual([
      { type: 'missing', loc: ['type'], msg: 'Field required' },
      { type: 'missing', loc: ['value'], msg: 'Field required' },
    ]);
    expect(validationIssues(() => parseGeneralName('DNS:x'))[0].type).toBe('model_type');
    expect(message(() => parseGeneralName({ type: 'DNS', value: [{ oid: 'CN', value: 'x' }] }))).toMatch(/: Must be a str for type DNS$/);
    expect(message(() => parseGeneralName({ type: 'IP', value: [] }))).toMatch(/: Must be an IPAddress\/IPNetwork for type IP$/);
    expect(message(() => parseGeneralName({ type: 'otherName', value: 'x' }))).toBe('x: Must be OtherNameModel for type otherName');
  });

  it('checks otherName type/value consistency', () => {
    const on = (type: string, value: unknown) => () => parseGeneralName({ type: 'otherName', value: { oid: '1.2.3', type, value } });
    expect(message(on('UTF8String', 1))).toBe('UTF8String: Value must be a str object.');
    expect(message(on('BOOLEAN', 'true'))).toBe('BOOLEAN: Value must be a boolean.');
    expect(message(on('INTEGER', 'abc'))).toBe('INTEGER: Value must be an int.');
    expect(message(on('INTEGER', 1.5))).toBe('INTEGER: Value must be an int.');
    expect(message(on('NULL', 'x'))).toBe('NULL: Value must be None.');
    expect(message(on('OctetString', 5))).toBe('OctetString: Value must be a str object.');
    expect(message(on('UTCTIME', 'tomorrow'))).toBe('UTCTIME: Value must be a datetime object.');
    expect(message(on('GENERALIZEDTIME', 12))).toBe('GENERALIZEDTIME: Value must be a datetime object.');
    expect(message(on('UTCTIME', '2020-01-01T00:00:00'))).toBe('UTCTIME: Value must be a timezone-aware datetime.');
    expect(message(on('UTCTIME', '2050-01-01T00:00:00Z'))).toBe('UTCTIME: Value must be a datetime between 1950 and 2049.');
    expect(
      (parseGeneralName({ type: 'otherName', value: { oid: '1.2.3', type: 'INT', value: '42' } }).value as { value: unknown }).value,
    ).toBe(42);
    expect(validationIssues(() => parseGeneralName({ type: 'otherName', value: { oid: 'x', type: 'FOO', value: 1 } }))).toEqual([
      { type: 'value_error', loc: ['value', 'othername', 'oid'], msg: 'x: Invalid object identifier' },
      {
        type: 'literal_error',
        loc: ['value', 'othername', 'type'],
        msg: "Input should be 'UTF8String', 'UNIVERSALSTRING', 'IA5STRING', 'BOOLEAN', 'NULL', 'UTCTIME', 'GENERALIZEDTIME', 'INTEGER' or 'OctetString'",
      },
    ]);
  });

  it('requires a non-empty list of unique names (compared after normalisation); element loc = index', () => {
    expect(message(() => parseGeneralNames([]))).toBe('value must not be empty');
    expect(
      validationIssues(() =>
        parseGeneralNames([
          { type: 'DNS', value: 'exämple.com' },
          { type: 'DNS', value: 'xn--exmple-cua.com' },
        ]),
      ),
    ).toEqual([{ type: 'value_error', loc: [], msg: "type='DNS' value='xn--exmple-cua.com': value must be unique" }]);
    expect(
      validationIssues(() =>
        parseGeneralNames([
          { type: 'DNS', value: 'ok.com' },
          { type: 'IP', value: '300.1.1.1' },
        ]),
      ),
    ).toEqual([{ type: 'value_error', loc: [1], msg: '300.1.1.1: Could not parse IP address' }]);
    expect(validationIssues(() => parseGeneralNames('x'))[0]).toEqual({ type: 'list_type', loc: [], msg: 'Input should be a valid list' });
  });
});

describe('IDNA / Punycode', () => {
  it('matches the RFC 3492 sample strings', () => {
    expect(punycodeEncode('bücher')).toBe('bcher-kva');
    expect(punycodeEncode('他们为什么不说中文')).toBe('ihqwcrb4cv8a8dqg056pqjye');
    expect(punycodeDecode('ihqwcrb4cv8a8dqg056pqjye')).toBe('他们为什么不说中文');
  });

  it('agrees with Node (UTS 46) on lower-case NFC labels made of letters', () => {
    const label = fc.stringMatching(/^[a-z\u00e0-\u00f6\u00f8-\u00ff\u0430-\u044f\u4e00-\u4e3f]{1,12}$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 3 }), (labels) => {
        const name = labels.join('.');
        expect(encodeDomain(name)).toBe(domainToASCII(name));
        expect(
          encodeDomain(name)
            .split('.')
            .map((l) => (l.startsWith('xn--') ? punycodeDecode(l.slice(4)) : l))
            .join('.'),
        ).toBe(name);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects upper-case non-ASCII labels and non-NFC text like the idna package', () => {
    expect(() => encodeDomain('EXÄMPLE.com')).toThrow("Codepoint U+0045 at position 1 of 'EXÄMPLE' not allowed");
    expect(() => encodeDomain('e\u0301xample.com')).toThrow('Label must be in Normalization Form C');
    expect(() => encodeDomain('xn--zz.com')).toThrow('Invalid A-label');
    expect(encodeDomain('Example.COM.')).toBe('Example.COM.');
  });
});
