/**
 * Certificate rows kept in memory for `GET /ca/{serial}/certs/{serial}/`: a certificate is read far
 * more often than it changes (only a revocation changes it), and on the embedded database even one
 * statement costs more than the rest of the request.
 *
 * Freshness (the rules of lib/cache/record-cache.ts):
 * - a revocation through the store (its `onCertificateChanged`) drops the entry
 *   once committed: in this process the next view shows it revoked. An embedded (PGlite) directory is
 *   locked to one process, so there every change is seen this way;
 * - a revocation made by another process on the same PostgreSQL (ca-admin, another instance) is seen
 *   once the entry is older than `ttlMs` (default 2 s).
 * Listing certificates and revoking or resigning one read the store, never this cache.
 */
import { RecordCache, subscribeIfSupported } from '../cache/record-cache';
import type { CertificateRecord, Store } from '../ports';

export const DEFAULT_CERTIFICATE_CACHE_TTL_MS = 2000;

export interface CertificateCacheOptions {
  /** Default 2000 ms; 0 disables the cache. */
  ttlMs?: number;
  /** Default 10 000 certificates. */
  maxEntries?: number;
  now?: () => number;
}

const keyOf = (caId: number, serial: string) => `${caId}:${serial}`;

export class CertificateCache implements Pick<Store, 'findCertificate'> {
  private readonly cache: RecordCache<CertificateRecord>;
  private readonly unsubscribe: (() => void) | null;

  constructor(
    private readonly store: Pick<Store, 'findCertificate' | 'onCertificateChanged'>,
    options: CertificateCacheOptions = {},
  ) {
    this.cache = new RecordCache((cert) => keyOf(cert.caId, cert.serial), {
      ttlMs: options.ttlMs ?? DEFAULT_CERTIFICATE_CACHE_TTL_MS,
      maxEntries: options.maxEntries ?? 10_000,
      now: options.now,
    });
    this.unsubscribe = subscribeIfSupported(store.onCertificateChanged.bind(store), (id) => this.cache.invalidate(id));
  }

  /** `serial` as the router hands it on: upper-case hex without colons or leading zeros. */
  findCertificate(caId: number, serial: string): Promise<CertificateRecord | null> {
    return this.cache.read(keyOf(caId, serial), () => this.store.findCertificate(caId, serial));
  }

  close(): void {
    this.unsubscribe?.();
    this.cache.clear();
  }
}
