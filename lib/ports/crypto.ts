/**
 * Signature checks away from the event loop. Loading a public key and verifying one ECDSA signature
 * costs a sign request about 0.2 ms of CPU, the largest single item on the API's thread
 * (docs/DESIGN.md "Issuance throughput"); a verifier does it elsewhere (the default: a worker thread,
 * adapters/crypto/verify-pool.ts).
 */
import type { SignatureAlgorithm } from '../x509/algorithms';

export interface SignatureVerifier {
  /**
   * True when `signature` over `data` verifies with the SubjectPublicKeyInfo `spkiDer` under
   * `algorithm`; false when it does not or the key does not fit the algorithm. Rejects with
   * X509Error('key') when the key cannot be loaded at all, as `verifySignature` (lib/x509) throws.
   */
  verify(algorithm: SignatureAlgorithm, spkiDer: Buffer, data: Buffer, signature: Buffer): Promise<boolean>;
}
