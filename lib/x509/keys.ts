/**
 * Private keys: generate, import (DER or PEM, plain or encrypted), export (PKCS#8) and inspect.
 *
 * Everything here is Node's `crypto`; keys travel as `KeyObject`s so that a key is parsed once and can
 * then sign any number of times. Import failures are reported as `X509Error('key')` with a message a
 * human can act on — never with key material or the password in it.
 */
import * as crypto from 'crypto';
import { parseDer, Type, type Node } from './asn1';
import { OFFERED_CURVES } from './curves';
import { X509Error } from './errors';
import type { KeySpec, KeyType } from './types';

export function generatePrivateKey(spec: KeySpec): crypto.KeyObject {
  try {
    switch (spec.keyType) {
      case 'RSA':
        return crypto.generateKeyPairSync('rsa', { modulusLength: spec.keySize, publicExponent: 65537 }).privateKey;
      case 'DSA':
        // FIPS 186-4 sizes: 1024 bits pairs with a 160-bit q, larger moduli with a 256-bit q.
        return crypto.generateKeyPairSync('dsa', {
          modulusLength: spec.keySize,
          divisorLength: spec.keySize <= 1024 ? 160 : 256,
        }).privateKey;
      case 'EC': {
        const namedCurve = OFFERED_CURVES[spec.curve]?.nodeName;
        if (!namedCurve) throw new X509Error('unsupported', `Unsupported elliptic curve: ${String(spec.curve)}`);
        return crypto.generateKeyPairSync('ec', { namedCurve }).privateKey;
      }
      case 'Ed25519':
        return crypto.generateKeyPairSync('ed25519').privateKey;
      case 'Ed448':
        return crypto.generateKeyPairSync('ed448').privateKey;
    }
  } catch (e) {
    if (e instanceof X509Error) throw e;
    throw new X509Error('unsupported', `Cannot generate a ${describeSpec(spec)} key: ${(e as Error).message}`);
  }
  throw new X509Error('unsupported', `Unsupported key type: ${String((spec as { keyType: unknown }).keyType)}`);
}

function describeSpec(spec: KeySpec): string {
  if (spec.keyType === 'RSA' || spec.keyType === 'DSA') return `${spec.keyType}-${spec.keySize}`;
  if (spec.keyType === 'EC') return `EC ${spec.curve}`;
  return spec.keyType;
}

// ---------------------------------------------------------------------------------------------------
// Import

const PEM_BEGIN = /-----BEGIN ([A-Z0-9 ]+)-----/;

/**
 * Load a private key from DER or PEM. Accepted: PKCS#8, encrypted PKCS#8, and the traditional
 * formats (PKCS#1 RSA, SEC1 EC, OpenSSL DSA), the PEM variants optionally with legacy
 * `Proc-Type: 4,ENCRYPTED` encryption.
 */
export function importPrivateKey(input: Buffer | string, password?: string): crypto.KeyObject {
  const text = typeof input === 'string' ? input : looksLikePem(input) ? input.toString('latin1') : null;
  const key = text !== null ? importPem(text, password) : importDer(input as Buffer, password);
  keyTypeOf(key); // reject key types we cannot sign certificates with (X25519, RSA-PSS-only keys, ...)
  return key;
}

function looksLikePem(buf: Buffer): boolean {
  // PEM may be preceded by whitespace or explanatory text; DER starts with a SEQUENCE tag (0x30).
  return buf.length > 0 && buf[0] !== 0x30 && buf.includes('-----BEGIN ');
}

function importPem(text: string, password: string | undefined): crypto.KeyObject {
  const label = PEM_BEGIN.exec(text)?.[1];
  if (!label || !label.endsWith('PRIVATE KEY')) {
    throw new X509Error('key', 'Not a PEM private key (expected a "-----BEGIN ... PRIVATE KEY-----" block)');
  }
  const encrypted = label === 'ENCRYPTED PRIVATE KEY' || /Proc-Type:\s*4,\s*ENCRYPTED/.test(text);
  if (encrypted && password === undefined) throw passwordRequired();
  try {
    return crypto.createPrivateKey({ key: text, format: 'pem', passphrase: encrypted ? password : undefined });
  } catch (e) {
    if (encrypted) throw wrongPassword();
    throw new X509Error('key', `Could not load the PEM private key: ${opensslReason(e)}`);
  }
}

function importDer(der: Buffer, password: string | undefined): crypto.KeyObject {
  const shape = derShape(der);
  if (shape === 'encrypted-pkcs8') {
    if (password === undefined) throw passwordRequired();
    try {
      return crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8', passphrase: password });
    } catch {
      // A wrong password either fails the padding check or decrypts to garbage that is not a key.
      throw wrongPassword();
    }
  }
  const attempts: (() => crypto.KeyObject)[] =
    shape === 'pkcs8'
      ? [() => crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })]
      : [
          () => crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs1' }),
          () => crypto.createPrivateKey({ key: der, format: 'der', type: 'sec1' }),
          // Node has no DER type for OpenSSL's traditional DSA format, but reads it as PEM.
          () => crypto.createPrivateKey({ key: toPem(der, 'DSA PRIVATE KEY'), format: 'pem' }),
        ];
  let last: unknown;
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch (e) {
      last = e;
    }
  }
  throw new X509Error('key', `Could not load the DER private key: ${opensslReason(last)}`);
}

type DerShape = 'encrypted-pkcs8' | 'pkcs8' | 'traditional';

/**
 * Tell the DER key containers apart by their first fields:
 *   EncryptedPrivateKeyInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET STRING }
 *   PrivateKeyInfo          ::= SEQUENCE { INTEGER version, AlgorithmIdentifier, OCTET STRING, ... }
 *   RSAPrivateKey / ECPrivateKey / DSA ::= SEQUENCE { INTEGER, INTEGER | OCTET STRING, ... }
 */
function derShape(der: Buffer): DerShape {
  let top: Node;
  try {
    top = parseDer(der, 'private key');
  } catch {
    throw new X509Error('key', 'Could not load the private key: neither PEM nor valid DER');
  }
  const items = Array.isArray(top.value) ? (top.value as Node[]) : [];
  const isSeq = (n: Node | undefined) => !!n && n.type === Type.SEQUENCE && n.constructed;
  if (isSeq(items[0])) return 'encrypted-pkcs8';
  if (items[0]?.type === Type.INTEGER && isSeq(items[1])) return 'pkcs8';
  return 'traditional';
}

function toPem(der: Buffer, label: string): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function passwordRequired(): X509Error {
  return new X509Error('key', 'The private key is encrypted: a password is required');
}

function wrongPassword(): X509Error {
  return new X509Error('key', 'Could not decrypt the private key: wrong password');
}

/** The reason part of an OpenSSL error ("error:1E08010C:DECODER routines::unsupported" → "unsupported"). */
function opensslReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const parts = message.split('::');
  return parts.length > 1 ? parts[parts.length - 1] : message;
}

// ---------------------------------------------------------------------------------------------------
// Export and inspection

export interface ExportOptions {
  format?: 'der' | 'pem';
  /** Encrypt the PKCS#8 structure (PBES2, AES-256-CBC) under this password. */
  password?: string;
}

/** PKCS#8, DER by default; the overloads give callers a `string` for PEM and a `Buffer` for DER. */
export function exportPrivateKey(key: crypto.KeyObject, options: ExportOptions & { format: 'pem' }): string;
export function exportPrivateKey(key: crypto.KeyObject, options?: ExportOptions & { format?: 'der' }): Buffer;
export function exportPrivateKey(key: crypto.KeyObject, options?: ExportOptions): Buffer | string;
export function exportPrivateKey(key: crypto.KeyObject, options: ExportOptions = {}): Buffer | string {
  if (key.type !== 'private') throw new X509Error('key', 'Only private keys can be exported');
  const encryption = options.password !== undefined ? { cipher: 'aes-256-cbc', passphrase: options.password } : {};
  if (options.format === 'pem') return key.export({ type: 'pkcs8', format: 'pem', ...encryption }) as string;
  return key.export({ type: 'pkcs8', format: 'der', ...encryption });
}

/** SubjectPublicKeyInfo DER of a private or public key. */
export function publicKeyDer(key: crypto.KeyObject): Buffer {
  const pub = key.type === 'private' ? crypto.createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'der' });
}

export function keyTypeOf(key: crypto.KeyObject): KeyType {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RSA';
    case 'dsa':
      return 'DSA';
    case 'ec':
      return 'EC';
    case 'ed25519':
      return 'Ed25519';
    case 'ed448':
      return 'Ed448';
    default:
      throw new X509Error('unsupported', `Unsupported key type: ${key.asymmetricKeyType ?? key.type}`);
  }
}
