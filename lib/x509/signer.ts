/**
 * The signing seam: everything that produces a signature goes through a `Signer`, so that a key held
 * in an HSM or a cloud KMS can sign certificates without the engine knowing.
 */
import type { HashAlgorithmName, KeyType } from './types';

/** How to sign: the hash (null for pure EdDSA) and, for RSA, the padding. */
export interface SignatureOptions {
  hash: HashAlgorithmName | null;
  /** RSA only; default `pkcs1`. */
  padding?: 'pkcs1' | 'pss';
  /** RSA-PSS salt length in bytes; default: the digest length. */
  saltLength?: number;
}

export interface Signer {
  readonly keyType: KeyType;
  /** SubjectPublicKeyInfo (DER) of the signing key. */
  readonly publicKeyDer: Buffer;
  /** Signature bytes as they go into a certificate's signatureValue BIT STRING (DER for ECDSA/DSA). */
  sign(data: Buffer, options: SignatureOptions): Promise<Buffer>;
}
