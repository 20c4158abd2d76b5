/**
 * lib/x509/oid-der.ts: OBJECT IDENTIFIER content octets to and from dotted text with arcs up to 256
 * bits (UUID OIDs, ITU-T X.667), checked against `openssl asn1parse -genstr` as the independent
 * encoder and reader, and against node-forge where both can (arcs of 32 bits and less).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as forge from 'node-forge';
import { contentToOid, encodedArcs, MAX_ARC_BITS, oidToContent } from '../../lib/x509/oid-der';
import { isValidOid } from '../../lib/x509/oids';

/** OpenSSL's DER of the OID (tag, length, content). */
function opensslDer(dotted: string): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oid-'));
  try {
    const out = path.join(dir, 'oid.der');
    execFileSync('openssl', ['asn1parse', '-genstr', `OID:${dotted}`, '-out', out, '-noout']);
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** OpenSSL's dotted reading of our DER. */
function opensslReads(content: Buffer): string {
  const der = Buffer.concat([Buffer.from([0x06, content.length]), content]);
  const out = execFileSync('openssl', ['asn1parse', '-inform', 'DER'], { input: der }).toString();
  return /OBJECT\s+:(\S+)/.exec(out)![1];
}

const UUID_OID = '2.25.329800735698586629295641978511506172918';
const LARGEST = `1.2.${(1n << BigInt(MAX_ARC_BITS)) - 1n}`;

test.each([
  ['a short one (no name OpenSSL knows)', '1.3.6.1.4.1.55555.1.2'],
  ['arc 0 and 1 boundaries', '0.39'],
  ['2 with a large second arc', '2.999.3'],
  ['a UUID OID', UUID_OID],
  ['a 32-bit arc', '1.3.6.1.4.1.4294967295'],
  ['a 64-bit arc', '1.3.18446744073709551615.7'],
  ['the largest arc', LARGEST],
])('%s: our encoding is byte for byte what openssl writes, and both read it back', (_name, dotted) => {
  const content = oidToContent(dotted);
  const der = opensslDer(dotted);
  expect(der.subarray(2).equals(content)).toBe(true);
  expect(contentToOid(content)).toBe(dotted);
  expect(opensslReads(content)).toBe(dotted);
});

test('agrees with node-forge on random OIDs whose arcs fit 32 bits', () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let i = 0; i < 500; i++) {
    const first = next() % 3;
    const second = first < 2 ? next() % 40 : next() % 100000;
    const rest = Array.from({ length: 1 + (next() % 6) }, () => (next() % 4 === 0 ? next() * 2 : next() % 300));
    const dotted = [first, second, ...rest].join('.');
    const ours = oidToContent(dotted);
    expect(ours.toString('binary')).toBe(forge.asn1.oidToDer(dotted).getBytes());
    expect(contentToOid(ours)).toBe(forge.asn1.derToOid(forge.util.createBuffer(ours.toString('binary'))));
  }
});

test.each([
  ['empty content', []],
  ['a last byte with the high bit', [0x2a, 0x86]],
  ['an arc with a leading 0x80 (not the shortest form)', [0x2a, 0x80, 0x01]],
  ['an arc longer than 256 bits', [0x2a, ...Array(37).fill(0xff), 0x7f]],
])('%s is a parse error', (_name, bytes) => {
  expect(() => contentToOid(Uint8Array.from(bytes))).toThrow(/OID/);
});

test.each([
  ['1.2.' + (1n << 256n).toString(), false],
  [LARGEST, true],
  [UUID_OID, true],
  ['1.40', false],
  ['3.1', false],
  ['1.02', false],
  ['1', false],
  ['1.2.' + '9'.repeat(100), false],
])('isValidOid(%s) is %s', (text, valid) => {
  expect(isValidOid(text)).toBe(valid);
  expect(encodedArcs(text) !== null).toBe(valid);
});

test('random content octets: either a parse error, or an OID that encodes back to the same bytes (DER is canonical)', () => {
  let seed = 99;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  let accepted = 0;
  for (let i = 0; i < 5000; i++) {
    const length = 1 + (next() % 48);
    // Mostly continuation bytes, so that long arcs (up to and beyond 256 bits) are drawn too.
    const bytes = Uint8Array.from({ length }, () => (next() % 5 === 0 ? next() % 128 : 0x80 | (next() % 128)));
    let dotted: string;
    try {
      dotted = contentToOid(bytes);
    } catch (e) {
      expect((e as Error).name).toBe('X509Error');
      continue;
    }
    accepted++;
    expect(isValidOid(dotted)).toBe(true);
    expect(Buffer.from(oidToContent(dotted)).equals(Buffer.from(bytes))).toBe(true);
  }
  expect(accepted).toBeGreaterThan(100);
});
