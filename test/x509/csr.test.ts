/**
 * CSRs of every key type, written by `openssl req -new`, read back and self-signature-checked.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readTlv, readTlvChildren } from '../../lib/x509/asn1';
import { parseCsr, parseVerifiedCsr } from '../../lib/x509/csr';
import { pemEncode } from '../../lib/x509/pem';
import { CORPUS_DIR, pemToDer } from '../helpers/corpus';
import { expectX509Error } from '../helpers/x509-error';

let dir: string;

function openssl(args: string[], input?: Buffer | string): Buffer {
  return execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });
}

function opensslVerify(der: Buffer): string {
  const r = spawnSync('openssl', ['req', '-inform', 'DER', '-in', '-', '-verify', '-noout'], { input: der });
  return r.stdout.toString() + r.stderr.toString();
}

interface KeyCase {
  label: string;
  /** How to get the private key into `file`. */
  make: (file: string) => void;
  sigArgs: string[];
  keyType: string;
  keySize: number;
  curve?: string;
  hash: string | null;
  pss?: boolean;
}

const fromCorpus = (name: string) => (file: string) =>
  openssl(['pkey', '-inform', 'DER', '-in', path.join(CORPUS_DIR, `${name}.key.der`), '-out', file]);
const ecKey = (curve: string) => (file: string) =>
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', `ec_paramgen_curve:${curve}`, '-out', file]);

const CASES: KeyCase[] = [
  { label: 'RSA', make: fromCorpus('root'), sigArgs: ['-sha256'], keyType: 'RSA', keySize: 2048, hash: 'SHA-256' },
  {
    label: 'RSA-PSS',
    make: fromCorpus('root'),
    sigArgs: ['-sha384', '-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:digest'],
    keyType: 'RSA',
    keySize: 2048,
    hash: 'SHA-384',
    pss: true,
  },
  { label: 'DSA', make: fromCorpus('dsa'), sigArgs: ['-sha256'], keyType: 'DSA', keySize: 2048, hash: 'SHA-256' },
  { label: 'EC P-256', make: ecKey('P-256'), sigArgs: ['-sha256'], keyType: 'EC', keySize: 256, curve: 'secp256r1', hash: 'SHA-256' },
  { label: 'EC P-384', make: ecKey('P-384'), sigArgs: ['-sha384'], keyType: 'EC', keySize: 384, curve: 'secp384r1', hash: 'SHA-384' },
  { label: 'EC P-521', make: ecKey('P-521'), sigArgs: ['-sha512'], keyType: 'EC', keySize: 521, curve: 'secp521r1', hash: 'SHA-512' },
  { label: 'Ed25519', make: fromCorpus('ed25519'), sigArgs: [], keyType: 'Ed25519', keySize: 256, hash: null },
  { label: 'Ed448', make: fromCorpus('ed448'), sigArgs: [], keyType: 'Ed448', keySize: 448, hash: null },
];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x509-csr-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Flip one bit in the last byte of the CSR's signature BIT STRING. */
function flipSignatureByte(der: Buffer): Buffer {
  const out = Buffer.from(der);
  const [, , sig] = readTlvChildren(out, readTlv(out, 0, out.length));
  out[sig.end - 1] ^= 0x01;
  return out;
}

describe.each(CASES)('$label CSR', (c) => {
  let keyFile: string;
  let pem: string;
  let der: Buffer;

  beforeAll(() => {
    keyFile = path.join(dir, `${c.label.replace(/\W/g, '_')}.key`);
    c.make(keyFile);
    pem = openssl([
      'req',
      '-new',
      '-key',
      keyFile,
      '-subj',
      '/C=AT/O=Example Org/CN=host.example.com',
      '-addext',
      'subjectAltName=DNS:host.example.com,DNS:www.example.com',
      '-addext',
      'keyUsage=critical,digitalSignature',
      ...c.sigArgs,
    ]).toString();
    der = pemToDer(pem);
  });

  test('parses and the self-signature verifies', () => {
    const csr = parseCsr(pem);
    expect(csr.der.equals(der)).toBe(true);
    expect(csr.subject).toEqual([
      { oid: '2.5.4.6', value: 'AT' },
      { oid: '2.5.4.10', value: 'Example Org' },
      { oid: '2.5.4.3', value: 'host.example.com' },
    ]);
    expect(csr.signatureAlgorithm.keyType).toBe(c.keyType);
    expect(csr.signatureAlgorithm.hash).toBe(c.hash);
    expect(!!csr.signatureAlgorithm.pss).toBe(!!c.pss);
  });

  test('public key matches openssl', () => {
    const csr = parseCsr(der);
    const spki = pemToDer(openssl(['req', '-in', '-', '-pubkey', '-noout'], pem).toString());
    expect(csr.publicKey.der.equals(spki)).toBe(true);
    expect(csr.publicKey.keyType).toBe(c.keyType);
    expect(csr.publicKey.keySize).toBe(c.keySize);
    expect(csr.publicKey.curve).toBe(c.curve);
    const text = openssl(['req', '-in', '-', '-noout', '-text'], pem).toString();
    if (c.keyType !== 'Ed25519' && c.keyType !== 'Ed448') {
      expect(text).toContain(`Public-Key: (${c.keySize} bit)`);
    }
  });

  test('requested extensions are read', () => {
    const csr = parseCsr(pem);
    expect(csr.requestedExtensions).toEqual([
      {
        type: 'subject_alternative_name',
        critical: false,
        value: [
          { type: 'DNS', value: 'host.example.com' },
          { type: 'DNS', value: 'www.example.com' },
        ],
      },
      { type: 'key_usage', critical: true, value: ['digital_signature'] },
    ]);
  });

  test('pem is the re-encoded request, as openssl writes it', () => {
    expect(parseCsr(der).pem).toBe(openssl(['req', '-inform', 'DER', '-outform', 'PEM'], der).toString());
  });

  test('one flipped signature byte → X509Error(signature); verify:false still parses', () => {
    const bad = flipSignatureByte(der);
    const err = expectX509Error(() => parseCsr(bad), 'signature');
    expect(err.message).toMatch(/signature/i);
    expect(parseCsr(bad, { verify: false }).subject).toHaveLength(3);
    // openssl agrees (its exit status is 0 either way in 3.0, so read what it says)
    expect(opensslVerify(der)).toMatch(/verify OK/);
    expect(opensslVerify(bad)).toMatch(/verify failure/);
  });

  test('parseVerifiedCsr (verified on the thread pool): the same result, the same refusals', async () => {
    expect(await parseVerifiedCsr(pem)).toEqual(parseCsr(pem));
    const bad = flipSignatureByte(der);
    await expect(parseVerifiedCsr(bad)).rejects.toMatchObject({ code: 'signature', message: parseCsrError(bad) });
    const garbage = Buffer.from(der.subarray(0, der.length - 10));
    await expect(parseVerifiedCsr(garbage)).rejects.toMatchObject({ code: parseCsrCode(garbage) });
  });

  test('a changed subject byte breaks the signature', () => {
    const bad = Buffer.from(der);
    const at = bad.indexOf(Buffer.from('host.example.com'));
    bad[at] = 'H'.charCodeAt(0);
    expectX509Error(() => parseCsr(bad), 'signature');
  });
});

describe('CSR input handling', () => {
  let pem: string;
  beforeAll(() => {
    const keyFile = path.join(dir, 'input.key');
    ecKey('P-256')(keyFile);
    pem = openssl(['req', '-new', '-key', keyFile, '-subj', '/CN=input.example.com']).toString();
  });

  test('a CSR without extensions has none', () => {
    expect(parseCsr(pem).requestedExtensions).toEqual([]);
  });

  test('the legacy NEW CERTIFICATE REQUEST label is accepted', () => {
    const legacy = pem.replace(/CERTIFICATE REQUEST/g, 'NEW CERTIFICATE REQUEST');
    expect(parseCsr(legacy).subject).toEqual([{ oid: '2.5.4.3', value: 'input.example.com' }]);
    expect(parseCsr(legacy).pem).toBe(pem);
  });

  test('a certificate is not a CSR', () => {
    const cert = fs.readFileSync(path.join(CORPUS_DIR, 'root.pem'), 'utf8');
    const err = expectX509Error(() => parseCsr(cert), 'parse');
    expect(err.message).toContain('"CERTIFICATE"');
    expectX509Error(() => parseCsr(pemToDer(cert)), 'parse');
  });

  test('garbage and truncation → parse errors', () => {
    const der = pemToDer(pem);
    expectX509Error(() => parseCsr(der.subarray(0, der.length - 5)), 'parse');
    expectX509Error(() => parseCsr(Buffer.concat([der, Buffer.from([0])])), 'parse');
    expectX509Error(() => parseCsr(pemEncode(Buffer.from('300100', 'hex'), 'CERTIFICATE REQUEST')), 'parse');
  });

  test('oversized input → too-large', () => {
    expectX509Error(() => parseCsr(Buffer.alloc(1024 * 1024, 0x30)), 'too-large');
  });
});

function parseCsrError(input: Buffer): string {
  try {
    parseCsr(input);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('parseCsr accepted it');
}

function parseCsrCode(input: Buffer): string {
  try {
    parseCsr(input);
  } catch (e) {
    return (e as { code: string }).code;
  }
  throw new Error('parseCsr accepted it');
}
