/** In-process change notifications of a store, after the commit: what the caches in front of it listen to. */

/**
 * Part of `Store`: tell in-process caches when a CA row changed (inserted, updated,
 * revoked), after the commit — like `UserChangeEvents`.
 */
export interface CaChangeEvents {
  /** Subscribe; returns the function that unsubscribes. */
  onCaChanged(listener: (caId: number) => void): () => void;
}

/**
 * Part of `Store`: tell in-process caches when a certificate row changed (revoked), after
 * the commit — like `UserChangeEvents`. New certificates need no event: caches never keep misses.
 */
export interface CertificateChangeEvents {
  /** Subscribe; returns the function that unsubscribes. */
  onCertificateChanged(listener: (certificateId: number) => void): () => void;
}
