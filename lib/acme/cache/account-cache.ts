/**
 * ACME accounts kept in memory for a short while: every ACME request names its account (`kid`), and
 * reading it was a round trip to the database for each of an order's five requests (bench/acme).
 *
 * Freshness is that of the API users' credentials and of the CA cache (lib/cache/ca-cache.ts): a change through
 * this process's store (`onAcmeAccountChanged`: update, deactivation, key rollover) drops the entry
 * as soon as it is committed; one made by another instance on the same PostgreSQL is seen once the
 * entry is older than `ttlMs` (default 2 s). An account not found is never kept.
 */
import type { AcmeAccountChangeEvents, AcmeAccountRecord, AcmeStore } from '../../ports';
import { DEFAULT_CA_CACHE_TTL_MS } from '../../cache/ca-cache';
import { RecordCache, subscribeIfSupported } from '../../cache/record-cache';

export class AcmeAccountCache {
  private readonly cache: RecordCache<AcmeAccountRecord>;
  private readonly unsubscribe: (() => void) | null;

  constructor(
    private readonly acme: Pick<AcmeStore, 'findAccount'> & Partial<AcmeAccountChangeEvents>,
    options: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.cache = new RecordCache((account) => `${account.caId}/${account.slug}`, {
      ttlMs: options.ttlMs ?? DEFAULT_CA_CACHE_TTL_MS,
      maxEntries: 10_000,
      now: options.now,
    });
    this.unsubscribe = subscribeIfSupported(acme.onAcmeAccountChanged?.bind(acme), (id) => this.cache.invalidate(id));
  }

  findAccount(caId: number, slug: string): Promise<AcmeAccountRecord | null> {
    return this.cache.read(`${caId}/${slug}`, () => this.acme.findAccount(caId, slug));
  }

  close(): void {
    this.unsubscribe?.();
    this.cache.clear();
  }
}
