/**
 * The key-encryption key (KEK) and the envelope that CA private keys are stored in.
 *
 * CA keys live in the database, so a database dump must not be a key dump: each key is encrypted
 * with AES-256-GCM under a 32-byte KEK that never touches the database (an option or the
 * CA_KEY_ENCRYPTION_KEY environment variable). The envelope records a KEK identifier so that a wrong
 * KEK is reported as such instead of as "corrupt data", and a version so that the format (and KEK
 * rotation, which needs the identifier to pick the right old key) can evolve.
 */
import * as crypto from 'crypto';
import { environment } from '../../lib/settings/environment';
import { KEK_VARIABLE, keyEncryptionKeySetting } from '../../lib/settings/key-encryption-key';
import { KeyBackendError } from './errors';

export const KEK_ENV = KEK_VARIABLE;
const KEK_BYTES = 32;
const IV_BYTES = 12; // the GCM standard nonce size
const TAG_BYTES = 16;

const HOW_TO_SET =
  `Set ${KEK_ENV} to 32 random bytes, base64-encoded (generate one with: openssl rand -base64 32), ` +
  'and keep it safe: without it the CA keys stored in the database cannot be used.';

export interface Kek {
  readonly key: Buffer;
  /** Public identifier: lets a stored key say which KEK it needs without revealing the KEK. */
  readonly id: string;
}

/** The stored form of an encrypted private key (JSON inside `key_backend_options`). */
export interface EncryptedKeyEnvelope {
  version: 1;
  algorithm: 'aes-256-gcm';
  kekId: string;
  iv: string; // base64
  tag: string; // base64
  ciphertext: string; // base64 of the encrypted PKCS#8 DER
}

/**
 * The KEK from an explicit value (base64 string or raw 32-byte Buffer) or, when none is given, from
 * CA_KEY_ENCRYPTION_KEY as lib/settings reads it; null when neither is set. A malformed value is an
 * error, never silently ignored.
 */
export function loadKek(value?: string | Buffer): Kek | null {
  const source = value ?? keyEncryptionKeySetting(environment());
  if (source === null || source === '') return null;
  const key = typeof source === 'string' ? decodeBase64Kek(source) : Buffer.from(source);
  if (key.length !== KEK_BYTES) {
    throw new KeyBackendError('bad-kek', `The key-encryption key must be exactly ${KEK_BYTES} bytes (got ${key.length}). ${HOW_TO_SET}`);
  }
  return { key, id: kekId(key) };
}

function decodeBase64Kek(text: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) && !/^[A-Za-z0-9_-]+={0,2}$/.test(trimmed)) {
    throw new KeyBackendError('bad-kek', `The key-encryption key is not valid base64. ${HOW_TO_SET}`);
  }
  return Buffer.from(trimmed, trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64');
}

/** First 8 bytes of a domain-separated SHA-256 of the KEK, hex. */
export function kekId(key: Buffer): string {
  return crypto.createHash('sha256').update('express-ca-api key-encryption-key id\0').update(key).digest('hex').slice(0, 16);
}

export function missingKekError(): KeyBackendError {
  return new KeyBackendError('no-kek', `No key-encryption key is configured for CA private keys. ${HOW_TO_SET}`);
}

/** Additional authenticated data: binds ciphertexts to this format and purpose. */
const AAD = Buffer.from('express-ca-api default key backend v1');

export function encryptKey(kek: Kek, plaintext: Buffer): EncryptedKeyEnvelope {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', kek.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(AAD);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return {
    version: 1,
    algorithm: 'aes-256-gcm',
    kekId: kek.id,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

export function decryptKey(kek: Kek, envelope: EncryptedKeyEnvelope): Buffer {
  if (envelope.kekId !== kek.id) {
    throw new KeyBackendError(
      'wrong-kek',
      "The key-encryption key does not match the one this CA's key was encrypted with " +
        `(key needs KEK ${envelope.kekId}, configured KEK is ${kek.id}). ` +
        `Set ${KEK_ENV} to the key-encryption key that was in use when the CA was created.`,
    );
  }
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', kek.key, Buffer.from(envelope.iv, 'base64'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(AAD);
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64')), decipher.final()]);
  } catch {
    throw new KeyBackendError('corrupt', "The CA's stored private key failed authentication: the stored data was altered or damaged.");
  }
}

/** Check the shape of an envelope read from the database (it is JSON someone could have edited). */
export function parseEnvelope(value: unknown): EncryptedKeyEnvelope {
  const v = value as Partial<EncryptedKeyEnvelope> | null;
  if (!v || typeof v !== 'object') throw new KeyBackendError('no-key', 'This CA has no private key in the default key backend.');
  if (v.version !== 1 || v.algorithm !== 'aes-256-gcm') {
    throw new KeyBackendError('corrupt', `Unsupported stored key format (version ${String(v.version)}, algorithm ${String(v.algorithm)}).`);
  }
  for (const field of ['kekId', 'iv', 'tag', 'ciphertext'] as const) {
    if (typeof v[field] !== 'string' || !v[field]) {
      throw new KeyBackendError('corrupt', `The stored private key is missing its "${field}" field.`);
    }
  }
  return v as EncryptedKeyEnvelope;
}
