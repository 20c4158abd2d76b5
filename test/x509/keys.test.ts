import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseDer, toDer, type Node } from '../../lib/x509/asn1';
import { X509Error } from '../../lib/x509/errors';
import { exportPrivateKey, generatePrivateKey, importPrivateKey, keyTypeOf, publicKeyDer } from '../../lib/x509/keys';
import type { KeySpec } from '../../lib/x509/types';
import { CORPUS_DIR, corpusNames, loadCorpusEntry } from '../helpers/corpus';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keys-test-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function openssl(args: string[], input?: Buffer | string): Buffer {
  return execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });
}

function writeTmp(name: string, data: Buffer | string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  return file;
}

/** The SPKI of a private key according to OpenSSL (the oracle, not our code). */
function opensslSpki(keyFile: string, inform: 'DER' | 'PEM', password?: string): Buffer {
  const args = ['pkey', '-in', keyFile, '-inform', inform, '-pubout', '-outform', 'DER'];
  if (password !== undefined) args.push('-passin', `pass:${password}`);
  return openssl(args);
}

function expectKeyError(fn: () => unknown, message: RegExp): void {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(X509Error);
  expect((error as X509Error).code).toBe('key');
  expect((error as X509Error).message).toMatch(message);
}

const SPECS: [string, KeySpec, string][] = [
  ['RSA-2048', { keyType: 'RSA', keySize: 2048 }, 'rsa'],
  ['DSA-2048', { keyType: 'DSA', keySize: 2048 }, 'dsa'],
  ['EC secp256r1', { keyType: 'EC', curve: 'secp256r1' }, 'ec'],
  ['EC secp384r1', { keyType: 'EC', curve: 'secp384r1' }, 'ec'],
  ['EC secp521r1', { keyType: 'EC', curve: 'secp521r1' }, 'ec'],
  ['Ed25519', { keyType: 'Ed25519' }, 'ed25519'],
  ['Ed448', { keyType: 'Ed448' }, 'ed448'],
];

const EXPECTED_CURVE: Record<string, string> = {
  secp256r1: 'prime256v1',
  secp384r1: 'secp384r1',
  secp521r1: 'secp521r1',
};

describe.each(SPECS)('%s', (label, spec, nodeType) => {
  const key = generatePrivateKey(spec);
  const spki = publicKeyDer(key);
  const slug = label.replace(/\W+/g, '_');

  test('generates the requested key', () => {
    expect(key.type).toBe('private');
    expect(key.asymmetricKeyType).toBe(nodeType);
    expect(keyTypeOf(key)).toBe(spec.keyType);
    const details = key.asymmetricKeyDetails ?? {};
    if (spec.keyType === 'RSA' || spec.keyType === 'DSA') expect(details.modulusLength).toBe(spec.keySize);
    if (spec.keyType === 'EC') expect(details.namedCurve).toBe(EXPECTED_CURVE[spec.curve]);
  });

  test('publicKeyDer is the SPKI OpenSSL derives from the exported key', () => {
    const file = writeTmp(`${slug}.der`, exportPrivateKey(key));
    expect(opensslSpki(file, 'DER').equals(spki)).toBe(true);
    // A public KeyObject gives the same bytes.
    expect(publicKeyDer(crypto.createPublicKey(key)).equals(spki)).toBe(true);
  });

  test('unencrypted DER and PEM round trips', () => {
    const der = exportPrivateKey(key, { format: 'der' });
    const pem = exportPrivateKey(key, { format: 'pem' });
    expect(Buffer.isBuffer(der)).toBe(true);
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(publicKeyDer(importPrivateKey(der)).equals(spki)).toBe(true);
    expect(publicKeyDer(importPrivateKey(pem)).equals(spki)).toBe(true);
    expect(publicKeyDer(importPrivateKey(Buffer.from(pem))).equals(spki)).toBe(true);
  });

  test('encrypted PKCS#8: OpenSSL reads it with the password, we need it', () => {
    const der = exportPrivateKey(key, { password: 'sesame' });
    const pem = exportPrivateKey(key, { format: 'pem', password: 'sesame' });
    expect(pem).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----\n/);
    const info = openssl(['asn1parse', '-inform', 'DER'], der).toString();
    expect(info).toMatch(/PBES2/);
    expect(info).toMatch(/aes-256-cbc/);
    expect(opensslSpki(writeTmp(`${slug}.enc.der`, der), 'DER', 'sesame').equals(spki)).toBe(true);

    for (const encoded of [der, pem]) {
      expect(publicKeyDer(importPrivateKey(encoded, 'sesame')).equals(spki)).toBe(true);
      expectKeyError(() => importPrivateKey(encoded), /password is required/);
      expectKeyError(() => importPrivateKey(encoded, 'wrong'), /wrong password/);
      expectKeyError(() => importPrivateKey(encoded, ''), /wrong password/);
    }
  });
});

describe('traditional formats written by OpenSSL', () => {
  const cases: [string, string[]][] = [
    ['RSA', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024']],
    ['EC', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384']],
  ];
  test.each(cases)('%s: PKCS#1/SEC1 DER and PEM, legacy-encrypted PEM', (name, genArgs) => {
    const pkcs8 = writeTmp(`trad-${name}.pem`, openssl(genArgs));
    const spki = opensslSpki(pkcs8, 'PEM');
    const tradDer = openssl(['pkey', '-in', pkcs8, '-traditional', '-outform', 'DER']);
    const tradPem = openssl(['pkey', '-in', pkcs8, '-traditional']).toString();
    expect(tradPem).toMatch(/BEGIN (RSA|EC) PRIVATE KEY/);
    const legacyEncrypted = openssl(['pkey', '-in', pkcs8, '-traditional', '-aes256', '-passout', 'pass:secret']).toString();
    expect(legacyEncrypted).toMatch(/Proc-Type: 4,ENCRYPTED/);

    expect(publicKeyDer(importPrivateKey(tradDer)).equals(spki)).toBe(true);
    expect(publicKeyDer(importPrivateKey(tradPem)).equals(spki)).toBe(true);
    expect(publicKeyDer(importPrivateKey(legacyEncrypted, 'secret')).equals(spki)).toBe(true);
    expectKeyError(() => importPrivateKey(legacyEncrypted), /password is required/);
    expectKeyError(() => importPrivateKey(legacyEncrypted, 'nope'), /wrong password/);
  });

  test('DSA: traditional DER and PEM', () => {
    // Reuse the corpus DSA key's parameters: generating fresh 2048-bit DSA parameters takes seconds.
    // PrivateKeyInfo.privateKeyAlgorithm.parameters is the Dss-Parms SEQUENCE { p, q, g }.
    const pkcs8Corpus = parseDer(fs.readFileSync(path.join(CORPUS_DIR, 'dsa.key.der')));
    const algorithm = (pkcs8Corpus.value as Node[])[1];
    const dssParms = toDer((algorithm.value as Node[])[1]).toString('base64');
    const params = writeTmp('dsa-params.pem', `-----BEGIN DSA PARAMETERS-----\n${dssParms}\n-----END DSA PARAMETERS-----\n`);
    const pkcs8 = writeTmp('trad-dsa.pem', openssl(['genpkey', '-paramfile', params]));
    const spki = opensslSpki(pkcs8, 'PEM');
    const tradDer = openssl(['pkey', '-in', pkcs8, '-traditional', '-outform', 'DER']);
    const tradPem = openssl(['pkey', '-in', pkcs8, '-traditional']).toString();
    expect(tradPem).toMatch(/BEGIN DSA PRIVATE KEY/);
    const key = importPrivateKey(tradDer);
    expect(keyTypeOf(key)).toBe('DSA');
    expect(publicKeyDer(key).equals(spki)).toBe(true);
    expect(publicKeyDer(importPrivateKey(tradPem)).equals(spki)).toBe(true);
  });
});

describe('bad input', () => {
  test('garbage, public keys and certificates are not private keys', () => {
    expectKeyError(() => importPrivateKey(Buffer.from('hello world')), /private key/);
    expectKeyError(() => importPrivateKey(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00])), /private key/);
    const pubPem = crypto.createPublicKey(generatePrivateKey({ keyType: 'Ed25519' })).export({
      type: 'spki',
      format: 'pem',
    }) as string;
    expectKeyError(() => importPrivateKey(pubPem), /PEM private key/);
    expectKeyError(() => importPrivateKey(loadCorpusEntry('root').pem), /PEM private key/);
  });

  test('a key type we cannot sign with is unsupported', () => {
    const x25519 = crypto.generateKeyPairSync('x25519').privateKey.export({ type: 'pkcs8', format: 'der' });
    let error: unknown;
    try {
      importPrivateKey(x25519);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(X509Error);
    expect((error as X509Error).code).toBe('unsupported');
  });

  test('an unknown curve is unsupported', () => {
    expect(() => generatePrivateKey({ keyType: 'EC', curve: 'brainpool' as never })).toThrow(X509Error);
  });

  test('error messages never contain the password', () => {
    const der = exportPrivateKey(generatePrivateKey({ keyType: 'Ed25519' }), { password: 'right-one' });
    try {
      importPrivateKey(der, 'my-secret-guess');
      throw new Error('expected a failure');
    } catch (e) {
      expect((e as Error).message).not.toContain('my-secret-guess');
    }
  });
});

describe('corpus keys', () => {
  const names = corpusNames().filter((n) => fs.existsSync(path.join(CORPUS_DIR, `${n}.key.der`)));

  test('the corpus has keys, including the password-protected one', () => {
    expect(names.length).toBeGreaterThan(10);
    expect(names).toContain('pwd');
  });

  test.each(names)('%s: the key imports and matches its certificate', (name) => {
    const entry = loadCorpusEntry(name);
    const password = typeof entry.facts.password === 'string' ? entry.facts.password : undefined;
    if (name === 'pwd') {
      expect(password).toBeDefined();
      expectKeyError(() => importPrivateKey(entry.keyDer!), /password is required/);
      expectKeyError(() => importPrivateKey(entry.keyDer!, 'not-the-password'), /wrong password/);
    }
    const key = importPrivateKey(entry.keyDer!, password);
    // The certificate's key as Node's own X.509 parser reads it (not our engine).
    const certSpki = new crypto.X509Certificate(entry.pem).publicKey.export({ type: 'spki', format: 'der' });
    expect(publicKeyDer(key).equals(certSpki)).toBe(true);
    if (entry.facts.key_type) {
      expect(keyTypeOf(key)).toBe(entry.facts.key_type);
    }
  });
});
