/**
 * Signature AlgorithmIdentifiers (RFC 5280 §4.1.1.2), both directions, and signature verification.
 *
 * One table maps every supported signature OID to its key type and hash. Encoding follows what OpenSSL
 * and pyca/cryptography write, byte for byte, so that a certificate we build looks like one they build:
 * RSA PKCS#1 v1.5 carries an explicit NULL, ECDSA/DSA/EdDSA carry no parameters, RSASSA-PSS carries
 * the full RSASSA-PSS-params (hash and MGF1 hash with NULL parameters, salt length unless it is the
 * default 20, no trailer field).
 */
import * as crypto from 'crypto';
import {
  Class,
  Node,
  Type,
  contentBytes,
  contextTag,
  explicit,
  integer,
  nullValue,
  oid,
  readInteger,
  readOid,
  readSequence,
  seq,
} from './asn1';
import { X509Error, parseError } from './errors';
import { OID_ED25519, OID_ED448, OID_RSASSA_PSS } from './key-algorithm-oids';
import { publicKeyObject } from './public-key-object';
import type { SignatureOptions } from './signer';
import type { HashAlgorithmName, KeyType, SignatureAlgorithmParameters, SignatureHashName } from './types';

export interface SignatureAlgorithm {
  /** The signature algorithm OID (for PSS: id-RSASSA-PSS). */
  oid: string;
  keyType: KeyType;
  /** null for pure EdDSA. */
  hash: SignatureHashName | null;
  /** Present exactly for RSASSA-PSS. */
  pss?: { saltLength: number; mgfHash: SignatureHashName };
}

const OID_MGF1 = '1.2.840.113549.1.1.8';

interface TableRow {
  oid: string;
  keyType: KeyType;
  hash: SignatureHashName | null;
}

/** Every non-PSS signature algorithm we read and write. */
const TABLE: readonly TableRow[] = [
  { oid: '1.2.840.113549.1.1.4', keyType: 'RSA', hash: 'MD5' },
  { oid: '1.2.840.113549.1.1.5', keyType: 'RSA', hash: 'SHA1' },
  { oid: '1.2.840.113549.1.1.14', keyType: 'RSA', hash: 'SHA-224' },
  { oid: '1.2.840.113549.1.1.11', keyType: 'RSA', hash: 'SHA-256' },
  { oid: '1.2.840.113549.1.1.12', keyType: 'RSA', hash: 'SHA-384' },
  { oid: '1.2.840.113549.1.1.13', keyType: 'RSA', hash: 'SHA-512' },
  { oid: '2.16.840.1.101.3.4.3.13', keyType: 'RSA', hash: 'SHA3/224' },
  { oid: '2.16.840.1.101.3.4.3.14', keyType: 'RSA', hash: 'SHA3/256' },
  { oid: '2.16.840.1.101.3.4.3.15', keyType: 'RSA', hash: 'SHA3/384' },
  { oid: '2.16.840.1.101.3.4.3.16', keyType: 'RSA', hash: 'SHA3/512' },
  { oid: '1.2.840.10045.4.1', keyType: 'EC', hash: 'SHA1' },
  { oid: '1.2.840.10045.4.3.1', keyType: 'EC', hash: 'SHA-224' },
  { oid: '1.2.840.10045.4.3.2', keyType: 'EC', hash: 'SHA-256' },
  { oid: '1.2.840.10045.4.3.3', keyType: 'EC', hash: 'SHA-384' },
  { oid: '1.2.840.10045.4.3.4', keyType: 'EC', hash: 'SHA-512' },
  { oid: '2.16.840.1.101.3.4.3.9', keyType: 'EC', hash: 'SHA3/224' },
  { oid: '2.16.840.1.101.3.4.3.10', keyType: 'EC', hash: 'SHA3/256' },
  { oid: '2.16.840.1.101.3.4.3.11', keyType: 'EC', hash: 'SHA3/384' },
  { oid: '2.16.840.1.101.3.4.3.12', keyType: 'EC', hash: 'SHA3/512' },
  { oid: '1.2.840.10040.4.3', keyType: 'DSA', hash: 'SHA1' },
  { oid: '2.16.840.1.101.3.4.3.1', keyType: 'DSA', hash: 'SHA-224' },
  { oid: '2.16.840.1.101.3.4.3.2', keyType: 'DSA', hash: 'SHA-256' },
  { oid: '2.16.840.1.101.3.4.3.3', keyType: 'DSA', hash: 'SHA-384' },
  { oid: '2.16.840.1.101.3.4.3.4', keyType: 'DSA', hash: 'SHA-512' },
  { oid: '2.16.840.1.101.3.4.3.5', keyType: 'DSA', hash: 'SHA3/224' },
  { oid: '2.16.840.1.101.3.4.3.6', keyType: 'DSA', hash: 'SHA3/256' },
  { oid: '2.16.840.1.101.3.4.3.7', keyType: 'DSA', hash: 'SHA3/384' },
  { oid: '2.16.840.1.101.3.4.3.8', keyType: 'DSA', hash: 'SHA3/512' },
  { oid: OID_ED25519, keyType: 'Ed25519', hash: null },
  { oid: OID_ED448, keyType: 'Ed448', hash: null },
];

const BY_OID = new Map(TABLE.map((r) => [r.oid, r]));
const BY_KEY_AND_HASH = new Map(TABLE.map((r) => [`${r.keyType}/${r.hash}`, r]));

/** Hash AlgorithmIdentifier OIDs, as used inside RSASSA-PSS-params. */
const HASH_OIDS: Readonly<Record<SignatureHashName, string>> = {
  MD5: '1.2.840.113549.2.5',
  SHA1: '1.3.14.3.2.26',
  'SHA-224': '2.16.840.1.101.3.4.2.4',
  'SHA-256': '2.16.840.1.101.3.4.2.1',
  'SHA-384': '2.16.840.1.101.3.4.2.2',
  'SHA-512': '2.16.840.1.101.3.4.2.3',
  'SHA3/224': '2.16.840.1.101.3.4.2.7',
  'SHA3/256': '2.16.840.1.101.3.4.2.8',
  'SHA3/384': '2.16.840.1.101.3.4.2.9',
  'SHA3/512': '2.16.840.1.101.3.4.2.10',
};
const HASH_BY_OID = new Map(Object.entries(HASH_OIDS).map(([name, o]) => [o, name as SignatureHashName]));

/** The OID of a hash algorithm (its AlgorithmIdentifier in RSASSA-PSS-params and in a DigestInfo). */
export function hashOid(hash: SignatureHashName): string {
  return HASH_OIDS[hash];
}

/** node:crypto digest names. */
const NODE_HASH: Readonly<Record<SignatureHashName, string>> = {
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

const DIGEST_LENGTH: Readonly<Record<SignatureHashName, number>> = {
  MD5: 16,
  SHA1: 20,
  'SHA-224': 28,
  'SHA-256': 32,
  'SHA-384': 48,
  'SHA-512': 64,
  'SHA3/224': 28,
  'SHA3/256': 32,
  'SHA3/384': 48,
  'SHA3/512': 64,
};

/** The node:crypto name of a hash (`sha256`, `sha3-256`, ...). */
export function nodeHashName(hash: SignatureHashName): string {
  return NODE_HASH[hash];
}

export function digestLength(hash: SignatureHashName): number {
  return DIGEST_LENGTH[hash];
}

// ---------------------------------------------------------------------------------------------------
// Decoding

function isNull(node: Node): boolean {
  return node.tagClass === Class.UNIVERSAL && node.type === Type.NULL && !node.constructed;
}

/** A hash AlgorithmIdentifier (parameters absent or NULL). */
function decodeHashIdentifier(node: Node, what: string): SignatureHashName {
  const parts = readSequence(node, what);
  if (parts.length < 1 || parts.length > 2 || (parts.length === 2 && !isNull(parts[1]))) {
    throw parseError(`${what}: malformed hash AlgorithmIdentifier`);
  }
  const hashOid = readOid(parts[0], what);
  const hash = HASH_BY_OID.get(hashOid);
  if (!hash) throw new X509Error('unsupported', `${what}: unsupported hash algorithm ${hashOid}`);
  return hash;
}

function decodePssParams(node: Node | undefined): SignatureAlgorithm {
  // RFC 4055: every field has a DEFAULT (SHA-1, MGF1 with SHA-1, 20, trailerFieldBC).
  let hash: SignatureHashName = 'SHA1';
  let mgfHash: SignatureHashName = 'SHA1';
  let saltLength = 20;
  const fields = readSequence(node, 'RSASSA-PSS parameters');
  let lastTag = -1;
  for (const field of fields) {
    const tag = contextTag(field);
    if (tag <= lastTag || !field.constructed) throw parseError('RSASSA-PSS parameters: unexpected field');
    lastTag = tag;
    const inner = (field.value as Node[])[0];
    if ((field.value as Node[]).length !== 1) throw parseError('RSASSA-PSS parameters: malformed field');
    switch (tag) {
      case 0:
        hash = decodeHashIdentifier(inner, 'RSASSA-PSS hashAlgorithm');
        break;
      case 1: {
        const mgf = readSequence(inner, 'RSASSA-PSS maskGenAlgorithm');
        if (mgf.length !== 2) throw parseError('RSASSA-PSS maskGenAlgorithm: malformed');
        const mgfOid = readOid(mgf[0], 'RSASSA-PSS maskGenAlgorithm');
        if (mgfOid !== OID_MGF1) throw new X509Error('unsupported', `unsupported mask generation function ${mgfOid}`);
        mgfHash = decodeHashIdentifier(mgf[1], 'RSASSA-PSS MGF1 hash');
        break;
      }
      case 2: {
        const n = readInteger(inner, 'RSASSA-PSS saltLength');
        if (n < 0n || n > 0xffffn) throw parseError('RSASSA-PSS saltLength: out of range');
        saltLength = Number(n);
        break;
      }
      case 3:
        if (readInteger(inner, 'RSASSA-PSS trailerField') !== 1n) {
          throw new X509Error('unsupported', 'RSASSA-PSS trailerField: only trailerFieldBC (1) is supported');
        }
        break;
      default:
        throw parseError('RSASSA-PSS parameters: unexpected field');
    }
  }
  return { oid: OID_RSASSA_PSS, keyType: 'RSA', hash, pss: { saltLength, mgfHash } };
}

/** Read a signature AlgorithmIdentifier. Unknown algorithms → X509Error('unsupported'). */
export function decodeSignatureAlgorithm(node: Node): SignatureAlgorithm {
  const what = 'signature AlgorithmIdentifier';
  const parts = readSequence(node, what);
  if (parts.length < 1 || parts.length > 2) throw parseError(`${what}: malformed`);
  const algOid = readOid(parts[0], what);
  const params = parts[1];
  if (algOid === OID_RSASSA_PSS) return decodePssParams(params);
  const row = BY_OID.get(algOid);
  if (!row) throw new X509Error('unsupported', `unsupported signature algorithm ${algOid}`);
  if (params) {
    // RSA writes NULL; RFC 5758/8410 say absent for ECDSA/DSA/EdDSA. Tolerate NULL everywhere (some
    // old encoders wrote it), reject anything else.
    if (!isNull(params) || contentBytes(params, what).length !== 0) {
      throw parseError(`${what}: unexpected parameters for ${algOid}`);
    }
  }
  return { oid: row.oid, keyType: row.keyType, hash: row.hash };
}

// ---------------------------------------------------------------------------------------------------
// Choosing and encoding

/** The algorithm a key of `keyType` signs with under `options`. Impossible combinations → 'unsupported'. */
export function signatureAlgorithmFor(keyType: KeyType, options: SignatureOptions): SignatureAlgorithm {
  const { hash } = options;
  const padding = options.padding ?? 'pkcs1';
  if (keyType === 'Ed25519' || keyType === 'Ed448') {
    if (hash !== null) throw new X509Error('unsupported', `${keyType} keys do not allow an algorithm for signing.`);
  } else if (hash === null) {
    throw new X509Error('unsupported', `${keyType} keys require a hash algorithm for signing.`);
  }
  if (padding !== 'pkcs1' && keyType !== 'RSA') {
    throw new X509Error('unsupported', `padding ${padding} is only possible with RSA keys`);
  }
  if (options.saltLength !== undefined && padding !== 'pss') {
    throw new X509Error('unsupported', 'a salt length is only possible with RSA-PSS');
  }
  if (keyType === 'RSA' && padding === 'pss') {
    const h = hash as HashAlgorithmName;
    const saltLength = options.saltLength ?? DIGEST_LENGTH[h];
    if (!Number.isInteger(saltLength) || saltLength < 0 || saltLength > 0xffff) {
      throw new X509Error('unsupported', `invalid RSA-PSS salt length ${saltLength}`);
    }
    return { oid: OID_RSASSA_PSS, keyType: 'RSA', hash: h, pss: { saltLength, mgfHash: h } };
  }
  const row = BY_KEY_AND_HASH.get(`${keyType}/${hash}`);
  if (!row) throw new X509Error('unsupported', `${keyType} keys cannot sign with ${hash}`);
  return { oid: row.oid, keyType: row.keyType, hash: row.hash };
}

function hashIdentifier(hash: SignatureHashName): Node {
  return seq([oid(HASH_OIDS[hash]), nullValue()]);
}

/** The AlgorithmIdentifier as OpenSSL/cryptography write it. */
export function encodeSignatureAlgorithm(alg: SignatureAlgorithm): Node {
  if (alg.pss) {
    const hash = alg.hash ?? 'SHA1';
    const fields: Node[] = [];
    // DEFAULT values are omitted (DER), exactly as OpenSSL does.
    if (hash !== 'SHA1') fields.push(explicit(0, hashIdentifier(hash)));
    if (alg.pss.mgfHash !== 'SHA1') {
      fields.push(explicit(1, seq([oid(OID_MGF1), hashIdentifier(alg.pss.mgfHash)])));
    }
    if (alg.pss.saltLength !== 20) fields.push(explicit(2, integer(alg.pss.saltLength)));
    return seq([oid(OID_RSASSA_PSS), seq(fields)]);
  }
  if (alg.keyType === 'RSA') return seq([oid(alg.oid), nullValue()]);
  return seq([oid(alg.oid)]);
}

/** `signature_algorithm_parameters` of docs/COMPATIBILITY.md §2 item 10. */
export function signatureParametersJson(alg: SignatureAlgorithm): SignatureAlgorithmParameters {
  if (alg.pss) {
    return { name: 'EMSA-PSS', salt_length: alg.pss.saltLength, mgf: { algorithm: alg.pss.mgfHash } };
  }
  switch (alg.keyType) {
    case 'RSA':
      return { name: 'EMSA-PKCS1-v1_5' };
    case 'EC':
      return { algorithm: alg.hash as SignatureHashName, deterministic_signing: false };
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Verification

/** The public key to verify with, or null when it does not fit `alg`; X509Error('key') when it cannot be loaded. */
function verifyingKey(alg: SignatureAlgorithm, spkiDer: Buffer): crypto.KeyObject | null {
  let key: crypto.KeyObject;
  try {
    key = publicKeyObject(spkiDer);
  } catch (e) {
    throw new X509Error('key', `cannot load public key: ${(e as Error).message}`);
  }
  return keyFits(alg, key) ? key : null;
}

/**
 * How `crypto.verify` checks a signature under `alg`, as plain data (so that another thread can do it:
 * adapters/crypto): the digest, RSA padding and salt length, and the key types that fit.
 */
export interface VerifyParameters {
  digest: string | null;
  padding?: number;
  saltLength?: number;
  /** `KeyObject.asymmetricKeyType`s the algorithm accepts. */
  keyTypes: readonly string[];
}

const FITTING_KEY_TYPES: Readonly<Record<KeyType, readonly string[]>> = {
  RSA: ['rsa'],
  EC: ['ec'],
  DSA: ['dsa'],
  Ed25519: ['ed25519'],
  Ed448: ['ed448'],
};
const RSA_PSS_KEY_TYPES: readonly string[] = ['rsa', 'rsa-pss'];

/** The key types `alg` accepts: RSASSA-PSS also takes a key that is restricted to PSS. */
function fittingKeyTypes(alg: SignatureAlgorithm): readonly string[] {
  return alg.pss ? RSA_PSS_KEY_TYPES : FITTING_KEY_TYPES[alg.keyType];
}

export function verifyParameters(alg: SignatureAlgorithm): VerifyParameters {
  const digest = alg.hash === null ? null : NODE_HASH[alg.hash];
  if (alg.pss) {
    if (alg.pss.mgfHash !== alg.hash) {
      // node:crypto (OpenSSL's one-shot API) always uses the signature hash for MGF1.
      throw new X509Error('unsupported', 'RSA-PSS with an MGF1 hash different from the signature hash');
    }
    return { digest, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: alg.pss.saltLength, keyTypes: fittingKeyTypes(alg) };
  }
  if (alg.keyType === 'RSA') return { digest, padding: crypto.constants.RSA_PKCS1_PADDING, keyTypes: fittingKeyTypes(alg) };
  // ECDSA and DSA signatures are DER SEQUENCE { r, s } (node's default dsaEncoding 'der').
  return { digest, keyTypes: fittingKeyTypes(alg) };
}

/** The digest and key arguments of `crypto.verify` for `alg`. */
function verifyArguments(alg: SignatureAlgorithm, key: crypto.KeyObject): [string | null, crypto.KeyObject | crypto.VerifyKeyObjectInput] {
  const { digest, padding, saltLength } = verifyParameters(alg);
  return [digest, padding === undefined ? key : { key, padding, ...(saltLength === undefined ? {} : { saltLength }) }];
}

/**
 * Verify `signature` over `data` with the SubjectPublicKeyInfo `spkiDer` under `alg`. Returns false
 * for a wrong signature and for a key that does not fit the algorithm; throws X509Error('key') when
 * the public key cannot be loaded at all.
 */
export function verifySignature(alg: SignatureAlgorithm, spkiDer: Buffer, data: Buffer, signature: Buffer): boolean {
  const key = verifyingKey(alg, spkiDer);
  if (!key) return false;
  const [digest, keyInput] = verifyArguments(alg, key);
  try {
    return crypto.verify(digest, data, keyInput, signature);
  } catch {
    // OpenSSL reports malformed signatures (bad DER, wrong length) as errors: that is "does not verify".
    return false;
  }
}

/**
 * `verifySignature` with the verification itself on libuv's thread pool (`crypto.verify` with a
 * callback), so that a server verifying many requests keeps its event loop for other work; loading the
 * key stays on the caller's thread (node:crypto offers no other way).
 */
export async function verifySignatureAsync(alg: SignatureAlgorithm, spkiDer: Buffer, data: Buffer, signature: Buffer): Promise<boolean> {
  const key = verifyingKey(alg, spkiDer);
  if (!key) return false;
  const [digest, keyInput] = verifyArguments(alg, key);
  return new Promise((resolve) => {
    try {
      crypto.verify(digest, data, keyInput, signature, (error, ok) => resolve(!error && ok));
    } catch {
      resolve(false); // as above: malformed is "does not verify"
    }
  });
}

/** Whether `key` fits `alg`, without deciding anything else: a key that does not fit is "does not verify". */
function keyFits(alg: SignatureAlgorithm, key: crypto.KeyObject): boolean {
  return fittingKeyTypes(alg).includes(key.asymmetricKeyType ?? '');
}
