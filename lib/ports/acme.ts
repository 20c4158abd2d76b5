/**
 * Ports of the ACME server (RFC 8555; docs/DESIGN.md "Domain events" and the ACME module to come):
 * optional store capabilities, in their own file like every other.
 */

/**
 * Anti-replay nonces (RFC 8555 §6.5): minted by any instance, accepted once by any instance on the
 * same database, refused after that or once expired. A nonce kept in one process's memory would
 * refuse every request that reaches another instance.
 */
export interface AcmeNonceStore {
  /** A new nonce (base64url, 43 characters: 32 random bytes), valid for `ttlMs`. */
  createAcmeNonce(ttlMs: number): Promise<string>;
  /** True exactly once for a nonce this store minted that has not expired; false otherwise. */
  consumeAcmeNonce(nonce: string): Promise<boolean>;
}

export function hasAcmeNonces<S extends object>(store: S): store is S & AcmeNonceStore {
  const s = store as Partial<AcmeNonceStore>;
  return typeof s.createAcmeNonce === 'function' && typeof s.consumeAcmeNonce === 'function';
}
