/**
 * Signature AlgorithmIdentifiers against OpenSSL: for each algorithm OpenSSL writes a CSR; the
 * identifier we decode must name the right algorithm, and the one we encode must be byte-identical.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as crypto from 'crypto';
import { parseDer, readTlv, readTlvChildren } from '../../lib/x509/asn1';
import {
  SignatureAlgorithm,
  decodeSignatureAlgorithm,
  encodeSignatureAlgorithm,
  signatureAlgorithmFor,
  signatureParametersJson,
  verifySignature,
} from '../../lib/x509/algorithms';
import { toDer } from '../../lib/x509/asn1';
import { X509Error } from '../../lib/x509/errors';
import type { SignatureOptions } from '../../lib/x509/signer';
import type { HashAlgorithmName, KeyType, SignatureHashName } from '../../lib/x509/types';
import { CORPUS_DIR } from '../helpers/corpus';

let dir: string;
const keyFiles: Record<string, string> = {};
const CORPUS_KEYS: Record<string, string> = { RSA: 'root', EC: 'ec', DSA: 'dsa', Ed25519: 'ed25519', Ed448: 'ed448' };

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x509-alg-'));
  for (const [type, name] of Object.entries(CORPUS_KEYS)) {
    keyFiles[type] = path.join(dir, `${name}.pem`);
    execFileSync('openssl', ['pkey', '-inform', 'DER', '-in', path.join(CORPUS_DIR, `${name}.key.der`), '-out', keyFiles[type]]);
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The signatureAlgorithm bytes of a CSR OpenSSL signs with `args`. */
function opensslAlgorithm(keyType: string, args: string[]): { der: Buffer; csr: Buffer } {
  const csr = execFileSync('openssl', ['req', '-new', '-key', keyFiles[keyType], '-subj', '/CN=alg', '-outform', 'DER', ...args]);
  const top = readTlv(csr, 0, csr.length);
  const [, alg] = readTlvChildren(csr, top);
  return { der: csr.subarray(alg.start, alg.end), csr };
}

const OPENSSL_DIGEST: Record<SignatureHashName, string> = {
  MD5: 'md5',
  SHA1: 'sha1',
  'SHA-224': 'sha224',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  'SHA3/224': 'sha3-224',
  'SHA3/256': 'sha3-256',
  'SHA3/384': 'sha3-384',
  'SHA3/512': 'sha3-512',
};
const SIGNING_HASHES: HashAlgorithmName[] = ['SHA-224', 'SHA-256', 'SHA-384', 'SHA-512', 'SHA3/224', 'SHA3/256', 'SHA3/384', 'SHA3/512'];

const cases: [KeyType, SignatureHashName | null, string][] = [
  ['RSA', 'MD5', '1.2.840.113549.1.1.4'],
  ['RSA', 'SHA1', '1.2.840.113549.1.1.5'],
  ['RSA', 'SHA-224', '1.2.840.113549.1.1.14'],
  ['RSA', 'SHA-256', '1.2.840.113549.1.1.11'],
  ['RSA', 'SHA-384', '1.2.840.113549.1.1.12'],
  ['RSA', 'SHA-512', '1.2.840.113549.1.1.13'],
  ['RSA', 'SHA3/224', '2.16.840.1.101.3.4.3.13'],
  ['RSA', 'SHA3/256', '2.16.840.1.101.3.4.3.14'],
  ['RSA', 'SHA3/384', '2.16.840.1.101.3.4.3.15'],
  ['RSA', 'SHA3/512', '2.16.840.1.101.3.4.3.16'],
  ['EC', 'SHA1', '1.2.840.10045.4.1'],
  ['EC', 'SHA-224', '1.2.840.10045.4.3.1'],
  ['EC', 'SHA-256', '1.2.840.10045.4.3.2'],
  ['EC', 'SHA-384', '1.2.840.10045.4.3.3'],
  ['EC', 'SHA-512', '1.2.840.10045.4.3.4'],
  ['EC', 'SHA3/224', '2.16.840.1.101.3.4.3.9'],
  ['EC', 'SHA3/256', '2.16.840.1.101.3.4.3.10'],
  ['EC', 'SHA3/384', '2.16.840.1.101.3.4.3.11'],
  ['EC', 'SHA3/512', '2.16.840.1.101.3.4.3.12'],
  ['DSA', 'SHA1', '1.2.840.10040.4.3'],
  ['DSA', 'SHA-224', '2.16.840.1.101.3.4.3.1'],
  ['DSA', 'SHA-256', '2.16.840.1.101.3.4.3.2'],
  ['DSA', 'SHA-384', '2.16.840.1.101.3.4.3.3'],
  ['DSA', 'SHA-512', '2.16.840.1.101.3.4.3.4'],
  ['DSA', 'SHA3/256', '2.16.840.1.101.3.4.3.6'],
  ['Ed25519', null, '1.3.101.112'],
  ['Ed448', null, '1.3.101.113'],
];

describe.each(cases)('%s with %s', (keyType, hash, expectedOid) => {
  let alg: SignatureAlgorithm;
  let der: Buffer;
  let csr: Buffer;

  beforeAll(() => {
    ({ der, csr } = opensslAlgorithm(keyType, hash ? [`-${OPENSSL_DIGEST[hash]}`] : []));
    alg = decodeSignatureAlgorithm(parseDer(der));
  });

  test('decodes to the OpenSSL algorithm', () => {
    expect(alg).toEqual({ oid: expectedOid, keyType, hash });
  });

  test('encodes byte-identically to OpenSSL', () => {
    expect(toDer(encodeSignatureAlgorithm(alg)).toString('hex')).toBe(der.toString('hex'));
  });

  test('signatureAlgorithmFor chooses it (hashes offered for signing only)', () => {
    if (hash === 'MD5' || hash === 'SHA1') return;
    const chosen = signatureAlgorithmFor(keyType, { hash: hash as HashAlgorithmName | null });
    expect(toDer(encodeSignatureAlgorithm(chosen)).equals(der)).toBe(true);
  });

  test('verifies the OpenSSL signature, and not a tampered one', () => {
    const top = readTlv(csr, 0, csr.length);
    const [info, , sig] = readTlvChildren(csr, top);
    const spki = crypto.createPublicKey({ key: fs.readFileSync(keyFiles[keyType]), format: 'pem' }).export({ format: 'der', type: 'spki' });
    const data = csr.subarray(info.start, info.end);
    const signature = csr.subarray(sig.contentStart + 1, sig.end);
    expect(verifySignature(alg, spki, data, signature)).toBe(true);
    const tampered = Buffer.from(data);
    tampered[tampered.length - 1] ^= 1;
    expect(verifySignature(alg, spki, tampered, signature)).toBe(false);
  });
});

describe('RSASSA-PSS', () => {
  const pssCases: [HashAlgorithmName, string, number][] = [
    ['SHA-256', 'digest', 32],
    ['SHA-256', '20', 20],
    ['SHA-384', 'digest', 48],
    ['SHA-512', 'digest', 64],
    ['SHA-512', '0', 0],
  ];
  test.each(pssCases)('%s salt %s', (hash, saltArg, saltLength) => {
    const { der, csr } = opensslAlgorithm('RSA', [
      `-${OPENSSL_DIGEST[hash]}`,
      '-sigopt',
      'rsa_padding_mode:pss',
      '-sigopt',
      `rsa_pss_saltlen:${saltArg}`,
    ]);
    const alg = decodeSignatureAlgorithm(parseDer(der));
    expect(alg).toEqual({ oid: '1.2.840.113549.1.1.10', keyType: 'RSA', hash, pss: { saltLength, mgfHash: hash } });
    expect(toDer(encodeSignatureAlgorithm(alg)).toString('hex')).toBe(der.toString('hex'));
    const options: SignatureOptions = { hash, padding: 'pss', ...(saltArg === 'digest' ? {} : { saltLength }) };
    expect(toDer(encodeSignatureAlgorithm(signatureAlgorithmFor('RSA', options))).equals(der)).toBe(true);
    expect(signatureParametersJson(alg)).toEqual({ name: 'EMSA-PSS', salt_length: saltLength, mgf: { algorithm: hash } });

    const top = readTlv(csr, 0, csr.length);
    const [info, , sig] = readTlvChildren(csr, top);
    const spki = crypto.createPublicKey({ key: fs.readFileSync(keyFiles.RSA), format: 'pem' }).export({ format: 'der', type: 'spki' });
    const signature = csr.subarray(sig.contentStart + 1, sig.end);
    expect(verifySignature(alg, spki, csr.subarray(info.start, info.end), signature)).toBe(true);
    // The same signature under a different salt length must not verify (the salt length is checked).
    const wrongSalt = { ...alg, pss: { saltLength: saltLength + 1, mgfHash: hash } };
    expect(verifySignature(wrongSalt, spki, csr.subarray(info.start, info.end), signature)).toBe(false);
  });

  test('all-default parameters (empty SEQUENCE) mean SHA-1, MGF1-SHA-1, salt 20', () => {
    const der = Buffer.from('300d06092a864886f70d01010a3000', 'hex');
    expect(decodeSignatureAlgorithm(parseDer(der))).toEqual({
      oid: '1.2.840.113549.1.1.10',
      keyType: 'RSA',
      hash: 'SHA1',
      pss: { saltLength: 20, mgfHash: 'SHA1' },
    });
    expect(toDer(encodeSignatureAlgorithm(decodeSignatureAlgorithm(parseDer(der)))).equals(der)).toBe(true);
  });
});

describe('signatureAlgorithmFor: impossible combinations', () => {
  const bad: [KeyType, SignatureOptions][] = [
    ['Ed25519', { hash: 'SHA-256' }],
    ['Ed448', { hash: 'SHA-512' }],
    ['RSA', { hash: null }],
    ['EC', { hash: null }],
    ['DSA', { hash: null }],
    ['EC', { hash: 'SHA-256', padding: 'pss' }],
    ['RSA', { hash: 'SHA-256', saltLength: 20 }],
    ['RSA', { hash: 'SHA-256', padding: 'pss', saltLength: -1 }],
  ];
  test.each(bad)('%s %j → unsupported', (keyType, options) => {
    let err: unknown;
    try {
      signatureAlgorithmFor(keyType, options);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(X509Error);
    expect((err as X509Error).code).toBe('unsupported');
  });

  test('every signing hash works with RSA, EC and DSA', () => {
    for (const keyType of ['RSA', 'EC', 'DSA'] as KeyType[]) {
      for (const hash of SIGNING_HASHES) expect(signatureAlgorithmFor(keyType, { hash }).hash).toBe(hash);
    }
  });
});

describe('decodeSignatureAlgorithm: bad input', () => {
  test.each([
    ['unknown OID', '300b06092a864886f70d010102'],
    ['parameters on ECDSA that are not NULL', '300d06082a8648ce3d040302020100'],
    ['empty SEQUENCE', '3000'],
    ['not a SEQUENCE', '06082a8648ce3d040302'],
    ['PSS with unknown MGF', '301e06092a864886f70d01010a3011a10f300d06092a864886f70d0101090500'],
  ])('%s → X509Error', (_label, hex) => {
    let err: unknown;
    try {
      decodeSignatureAlgorithm(parseDer(Buffer.from(hex, 'hex')));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(X509Error);
  });
});

describe('signatureParametersJson', () => {
  test('shapes of models.md §7 item 10', () => {
    expect(signatureParametersJson(signatureAlgorithmFor('RSA', { hash: 'SHA-256' }))).toEqual({ name: 'EMSA-PKCS1-v1_5' });
    expect(signatureParametersJson(signatureAlgorithmFor('EC', { hash: 'SHA-384' }))).toEqual({
      algorithm: 'SHA-384',
      deterministic_signing: false,
    });
    expect(signatureParametersJson(signatureAlgorithmFor('DSA', { hash: 'SHA-256' }))).toBeNull();
    expect(signatureParametersJson(signatureAlgorithmFor('Ed25519', { hash: null }))).toBeNull();
    expect(signatureParametersJson(signatureAlgorithmFor('Ed448', { hash: null }))).toBeNull();
    expect(Object.keys(signatureParametersJson(signatureAlgorithmFor('RSA', { hash: 'SHA-256', padding: 'pss' }))!)).toEqual([
      'name',
      'salt_length',
      'mgf',
    ]);
  });
});
