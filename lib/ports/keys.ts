/** Key storage: where CA private keys live and how the CA gets a signer for one. */
import type { KeySpec } from '../x509/types';
import type { Signer } from '../x509/signer';

/** What a backend returns for a key it now holds: the public key and how to find the key again. */
export interface StoredKey {
  /** SubjectPublicKeyInfo DER of the new key. */
  publicKeyDer: Buffer;
  /**
   * Backend-private reference kept in the CA row (`key_backend_options`). Never exposed by the API.
   * The default backend keeps the encrypted key here.
   */
  options: Record<string, unknown>;
}

export interface KeyBackend {
  /** Name the CA row refers to in `key_backend_alias` (`default` for the built-in backend). */
  readonly alias: string;
  /**
   * `keyOptions`: backend-specific choices for the new key (an HSM backend: its label,
   * `{ keyLabel }`); backends that need none ignore them.
   */
  createKey(spec: KeySpec, keyOptions?: Record<string, unknown>): Promise<StoredKey>;
  /** Import an existing private key (DER or PEM, PKCS#8 or traditional, optionally encrypted); `keyOptions` as for `createKey`. */
  importKey(key: Buffer | string, password?: string, keyOptions?: Record<string, unknown>): Promise<StoredKey>;
  /**
   * A signer for the key described by `options`. `useOptions` are per-request options
   * (`key_backend_options` of a sign request); backends that need none ignore them.
   */
  getSigner(options: Record<string, unknown>, useOptions?: Record<string, unknown>): Promise<Signer>;
  /**
   * Optional: what of a sign request's `useOptions` may be written to the database with its order,
   * for a runner that signs it later (another instance, or after a restart). Without this method
   * nothing is: per-use options may carry secrets (a PIN, a token), and the built-in backend needs
   * none. Orders signed in the request or by this process's runner are signed with the options as
   * given, whatever is stored.
   */
  storableUseOptions?(useOptions: Record<string, unknown>): Record<string, unknown>;
  /**
   * Optional: why this backend, as configured, can open no key at all (the default backend without a
   * key-encryption key), or null. A router asks when it is built and refuses to start with the answer
   * (an `OptionsError`), instead of failing every signature later.
   */
  configurationProblem?(): string | null;
}

/**
 * The raw RSA private-key operation on one block (RFC 8017 §5.1.2, RSADP: no padding), for the key
 * transport of SCEP requests (RFC 8894 §3.2.2). The caller removes the PKCS#1 v1.5 padding itself,
 * without telling a bad padding apart from any other failure (lib/x509/scep/rsa-unpad.ts).
 */
export interface RawRsaDecrypter {
  /** SubjectPublicKeyInfo DER of the key. */
  readonly publicKeyDer: Buffer;
  /** `block` (exactly the modulus length) to the power of the private exponent; rejects on a non-RSA key. */
  decryptRaw(block: Buffer): Promise<Buffer>;
}

/** Optional capability of a key backend: decrypting with an RSA key it holds (a SCEP RA's). */
export interface KeyDecryption {
  getDecrypter(options: Record<string, unknown>): Promise<RawRsaDecrypter>;
}

export function hasKeyDecryption<B extends KeyBackend>(backend: B): backend is B & KeyDecryption {
  return typeof (backend as Partial<KeyDecryption>).getDecrypter === 'function';
}

/**
 * The place the key lives cannot be reached now (an HSM whose token was removed or does not answer),
 * though the request itself is fine: the API answers 503 with `Retry-After` (docs/operations/hostile-clients-and-outages.md "Outages"), an
 * order fails with this message as its reason. Messages name the backend and the cause, never a PIN.
 */
export class KeyBackendUnavailableError extends Error {
  readonly code = 'key-backend-unavailable' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeyBackendUnavailableError';
  }
}
