/**
 * publicKeyObject (lib/x509/public-key-object.ts) takes a JWK shortcut for most keys: whatever the
 * path, the KeyObject must be the very key OpenSSL's own SPKI decoder produces, and a key that is
 * not one must still be refused.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import { publicKeyObject } from '../../lib/x509/public-key-object';

const spkiOf = (key: crypto.KeyObject) => key.export({ type: 'spki', format: 'der' });

const KEYS: [string, () => crypto.KeyObject][] = [
  ['RSA-2048', () => crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey],
  ['RSA with exponent 3', () => crypto.generateKeyPairSync('rsa', { modulusLength: 1024, publicExponent: 3 }).publicKey],
  [
    'RSASSA-PSS',
    () =>
      crypto.generateKeyPairSync('rsa-pss', {
        modulusLength: 2048,
        hashAlgorithm: 'sha256',
        mgf1HashAlgorithm: 'sha256',
        saltLength: 32,
      } as unknown as crypto.RSAPSSKeyPairKeyObjectOptions).publicKey,
  ],
  ['EC P-256', () => crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey],
  ['EC P-384', () => crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey],
  ['EC P-521', () => crypto.generateKeyPairSync('ec', { namedCurve: 'P-521' }).publicKey],
  ['EC secp256k1', () => crypto.generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey],
  ['Ed25519', () => crypto.generateKeyPairSync('ed25519').publicKey],
  ['Ed448', () => crypto.generateKeyPairSync('ed448').publicKey],
  ['DSA', () => crypto.generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 }).publicKey],
];

test.each(KEYS)('%s: the same key as the DER decoder gives', (_name, make) => {
  const key = make();
  const spki = spkiOf(key);
  const ours = publicKeyObject(spki);
  expect(ours.equals(crypto.createPublicKey({ key: spki, format: 'der', type: 'spki' }))).toBe(true);
  expect(ours.asymmetricKeyType).toBe(key.asymmetricKeyType);
  expect(spkiOf(ours).equals(spki)).toBe(true);
});

test('a compressed EC point (made by openssl) takes the DER path and is the same key', () => {
  const key = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
  const spki = execFileSync('openssl', ['ec', '-pubin', '-inform', 'DER', '-conv_form', 'compressed', '-outform', 'DER'], {
    input: spkiOf(key),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  expect(spki.length).toBeLessThan(spkiOf(key).length);
  expect(publicKeyObject(spki).equals(key)).toBe(true);
});

test('a point that is not on the curve is refused, as by the DER decoder', () => {
  const key = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
  const spki = Buffer.from(spkiOf(key));
  spki[spki.length - 1] ^= 0x01; // y no longer matches x
  expect(() => crypto.createPublicKey({ key: spki, format: 'der', type: 'spki' })).toThrow();
  expect(() => publicKeyObject(spki)).toThrow();
});

test('garbage is refused', () => {
  expect(() => publicKeyObject(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]))).toThrow();
  expect(() => publicKeyObject(Buffer.alloc(0))).toThrow();
});

test('a signature made by the key verifies with the KeyObject, one made by another key does not', () => {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const other = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const data = Buffer.from('to be signed');
  const sig = crypto.sign('sha256', data, privateKey);
  expect(crypto.verify('sha256', data, publicKeyObject(spkiOf(publicKey)), sig)).toBe(true);
  expect(crypto.verify('sha256', data, publicKeyObject(spkiOf(other.publicKey)), sig)).toBe(false);
});
