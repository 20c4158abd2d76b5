/**
 * From the engine's signature request (lib/x509/signer.ts) to a PKCS#11 mechanism and back.
 *
 * The hash is computed here, the token signs the digest: every hash the engine offers works the same
 * way on every token, and the token receives 32-64 bytes instead of a whole TBSCertificate.
 *   - RSA PKCS#1 v1.5: CKM_RSA_PKCS over the DER DigestInfo (PKCS#11 v2.40 §2.1.6, RFC 8017 §9.2);
 *   - RSA-PSS: CKM_RSA_PKCS_PSS over the digest, with CK_RSA_PKCS_PSS_PARAMS (v2.40 §2.1.14);
 *   - ECDSA: CKM_ECDSA over the digest; the token answers r||s, certificates want
 *     ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (RFC 5480 §2.2.3);
 *   - EdDSA: CKM_EDDSA over the message itself (PKCS#11 v3.0 §2.3.14, RFC 8410: pure EdDSA).
 */
import * as crypto from 'crypto';
import { digestLength, hashOid, nodeHashName } from '../../../lib/x509/algorithms';
import { integer, nullDer, octets, oid, seq } from '../../../lib/x509/revocation/der';
import type { SignatureOptions } from '../../../lib/x509/signer';
import type { HashAlgorithmName, KeyType } from '../../../lib/x509/types';
import { CKM_EDDSA, type Binding, type Mechanism } from './binding';

/** DigestInfo ::= SEQUENCE { SEQUENCE { OID, NULL }, OCTET STRING digest } (RFC 8017 §9.2 note 1). */
function digestInfo(hash: HashAlgorithmName, digest: Buffer): Buffer {
  return seq(seq(oid(hashOid(hash)), nullDer()), octets(digest));
}

/** PSS needs the token to know the hash (for MGF1): the SHA-2 family only (CKG_MGF1_SHA3_* are v3.0 and rare). */
function pssParameters(b: Binding, hash: HashAlgorithmName, saltLength: number) {
  const table: Partial<Record<HashAlgorithmName, [number, number]>> = {
    'SHA-224': [b.CKM_SHA224, b.CKG_MGF1_SHA224],
    'SHA-256': [b.CKM_SHA256, b.CKG_MGF1_SHA256],
    'SHA-384': [b.CKM_SHA384, b.CKG_MGF1_SHA384],
    'SHA-512': [b.CKM_SHA512, b.CKG_MGF1_SHA512],
  };
  const found = table[hash];
  if (!found) throw new Error(`RSA-PSS with ${hash} is not supported by the PKCS#11 key backend (SHA-224 to SHA-512 are).`);
  return { type: b.CK_PARAMS_RSA_PSS, hashAlg: found[0], mgf: found[1], saltLen: saltLength };
}

export interface Prepared {
  mechanism: Mechanism;
  input: Buffer;
  /** Room for the signature: the largest any supported key makes. */
  outputLength: number;
  finish: (raw: Buffer) => Buffer;
}

const identity = (raw: Buffer) => raw;

export function prepareSignature(b: Binding, keyType: KeyType, data: Buffer, options: SignatureOptions): Prepared {
  if (keyType === 'Ed25519' || keyType === 'Ed448') {
    if (options.hash !== null) throw new Error(`${keyType} keys do not allow an algorithm for signing.`);
    return { mechanism: { mechanism: CKM_EDDSA }, input: data, outputLength: 114, finish: identity };
  }
  if (options.hash === null) throw new Error(`${keyType} keys require a hash algorithm for signing.`);
  const hash = options.hash;
  const digest = crypto.createHash(nodeHashName(hash)).update(data).digest();
  if (keyType === 'EC') {
    return { mechanism: { mechanism: b.CKM_ECDSA }, input: digest, outputLength: 132, finish: rawToDer };
  }
  if (keyType !== 'RSA') throw new Error(`${keyType} keys are not supported by the PKCS#11 key backend.`);
  if ((options.padding ?? 'pkcs1') === 'pss') {
    const parameter = pssParameters(b, hash, options.saltLength ?? digestLength(hash));
    return { mechanism: { mechanism: b.CKM_RSA_PKCS_PSS, parameter }, input: digest, outputLength: 1024, finish: identity };
  }
  return { mechanism: { mechanism: b.CKM_RSA_PKCS }, input: digestInfo(hash, digest), outputLength: 1024, finish: identity };
}

/** r||s (each half the length) → SEQUENCE { r, s }. */
export function rawToDer(raw: Buffer): Buffer {
  const half = raw.length / 2;
  const unsigned = (bytes: Buffer) => integer(BigInt(`0x${bytes.toString('hex')}`));
  return seq(unsigned(raw.subarray(0, half)), unsigned(raw.subarray(half)));
}
