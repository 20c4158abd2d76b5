/**
 * Raw RSA decryption in the token, for a SCEP RA's key (docs/guides/scep.md, docs/operations/hsm.md): CKM_RSA_X_509
 * (PKCS#11 v2.40 §2.1.8: RSADP of RFC 8017 §5.1.2, no padding) returns the whole encoded block, and the
 * caller removes the PKCS#1 v1.5 padding itself without branching on it (lib/x509/scep/rsa-unpad.ts) —
 * not CKM_RSA_PKCS, whose padding check is the token's, with timing and errors that differ by vendor
 * (a Bleichenbacher oracle where they differ).
 *
 * A block that is no RSA ciphertext for the key — not the modulus's length, or not below the modulus
 * (RFC 8017 §5.1.2 step 1) — is refused here, before the token sees it: tokens answer it differently
 * (SoftHSM2 with CKR_GENERAL_ERROR, which the backend takes for a token reset and logs in again), and
 * both facts are public, read from the ciphertext and the certificate. What the token still refuses as
 * data (CKR_ENCRYPTED_DATA_INVALID, CKR_ENCRYPTED_DATA_LEN_RANGE) is treated the same way: one plain
 * `Error` that says nothing of the cause, and the caller takes the random key it takes for a bad
 * padding (lib/x509/scep/enveloped-data.ts) — never a distinct answer.
 */
import type { Binding } from './binding';

/** What every refused block becomes: the same text whatever the token said. */
export const REFUSED_BLOCK = 'the token did not decrypt this block';

/** The mechanism: raw RSA. */
export const rawRsa = (b: Binding) => ({ mechanism: b.CKM_RSA_X_509 });

/** Is `block` a ciphertext for the modulus `n` (big-endian, its length k): k octets, below n? */
export function isRsaCiphertext(block: Buffer, n: Buffer): boolean {
  return block.length === n.length && Buffer.compare(block, n) < 0;
}

/** Does `code` say the block itself was refused (as opposed to the token, the key or the session)? */
export function isRefusedBlock(b: Binding, code: number | null): boolean {
  return code === b.CKR_ENCRYPTED_DATA_INVALID || code === b.CKR_ENCRYPTED_DATA_LEN_RANGE;
}
