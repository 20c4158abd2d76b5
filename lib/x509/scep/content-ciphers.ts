/**
 * The content-encryption algorithms of SCEP envelopes (RFC 8894 §3.5.2, §3.2.2): DES-CBC, DES-EDE3-CBC
 * and AES-CBC, all with an OCTET STRING IV as parameters (RFC 8018 Appendix B.2.1, RFC 3370 §5.1,
 * RFC 3565 §4.1) and PKCS#7 block padding (RFC 5652 §6.3).
 *
 * Single DES sits in OpenSSL 3's legacy provider, which Node 20 does not load. EDE with three equal
 * keys is single DES (E_K(D_K(E_K(x))) = E_K(x)), so it runs as DES-EDE3-CBC with K‖K‖K.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';
import { OID_AES128_CBC, OID_AES192_CBC, OID_AES256_CBC, OID_DES_CBC, OID_DES_EDE3_CBC } from './oids';

export type ScepCipher = 'des-cbc' | 'des-ede3-cbc' | 'aes-128-cbc' | 'aes-192-cbc' | 'aes-256-cbc';

interface CipherSpec {
  oid: string;
  /** The OpenSSL name Node runs it under. */
  nodeName: string;
  keyLength: number;
  /** IV length = block size. */
  blockSize: number;
}

export const CIPHERS: Readonly<Record<ScepCipher, CipherSpec>> = {
  'des-cbc': { oid: OID_DES_CBC, nodeName: 'des-ede3-cbc', keyLength: 8, blockSize: 8 },
  'des-ede3-cbc': { oid: OID_DES_EDE3_CBC, nodeName: 'des-ede3-cbc', keyLength: 24, blockSize: 8 },
  'aes-128-cbc': { oid: OID_AES128_CBC, nodeName: 'aes-128-cbc', keyLength: 16, blockSize: 16 },
  'aes-192-cbc': { oid: OID_AES192_CBC, nodeName: 'aes-192-cbc', keyLength: 24, blockSize: 16 },
  'aes-256-cbc': { oid: OID_AES256_CBC, nodeName: 'aes-256-cbc', keyLength: 32, blockSize: 16 },
};

/** The cipher an OID names, or undefined. */
export function cipherByOid(oid: string): ScepCipher | undefined {
  return (Object.keys(CIPHERS) as ScepCipher[]).find((name) => CIPHERS[name].oid === oid);
}

/** The key Node is given: single DES as K‖K‖K. */
function nodeKey(cipher: ScepCipher, key: Buffer): Buffer {
  return cipher === 'des-cbc' ? Buffer.concat([key, key, key]) : key;
}

/**
 * A fresh random content-encryption key. DES keys get odd parity in each octet (FIPS 46-3 §"Data
 * Encryption Algorithm"): OpenSSL ignores the parity bits, but a strict decrypter may check them.
 */
export function randomContentKey(cipher: ScepCipher): Buffer {
  const key = randomBytes(CIPHERS[cipher].keyLength);
  if (cipher === 'des-cbc' || cipher === 'des-ede3-cbc') {
    for (let i = 0; i < key.length; i++) {
      let ones = 0;
      for (let bit = 1; bit < 0x100; bit <<= 1) ones += key[i] & bit ? 1 : 0;
      if (ones % 2 === 0) key[i] ^= 1;
    }
  }
  return key;
}

/** CBC encryption with PKCS#7 padding (Node's default). */
export function encryptContent(cipher: ScepCipher, key: Buffer, iv: Buffer, plaintext: Buffer): Buffer {
  const c = createCipheriv(CIPHERS[cipher].nodeName, nodeKey(cipher, key), iv);
  return Buffer.concat([c.update(plaintext), c.final()]);
}

/**
 * CBC decryption and PKCS#7 unpadding with every pad octet checked, without an early exit on the
 * plaintext's bytes; null on any failure, the same null whatever went wrong.
 */
export function decryptContent(cipher: ScepCipher, key: Buffer, iv: Buffer, ciphertext: Buffer): Buffer | null {
  const { blockSize } = CIPHERS[cipher];
  if (ciphertext.length === 0 || ciphertext.length % blockSize !== 0) return null;
  let plain: Buffer;
  try {
    const d = createDecipheriv(CIPHERS[cipher].nodeName, nodeKey(cipher, key), iv);
    d.setAutoPadding(false);
    plain = Buffer.concat([d.update(ciphertext), d.final()]);
  } catch {
    return null;
  }
  const n = plain.length;
  const pad = plain[n - 1];
  let bad = (pad === 0 ? 1 : 0) | (pad > blockSize ? 1 : 0);
  for (let i = 1; i <= blockSize; i++) {
    const inPadding = i <= pad ? 1 : 0;
    bad |= inPadding & (plain[n - i] !== pad ? 1 : 0);
  }
  return bad ? null : plain.subarray(0, n - pad);
}
