/**
 * The ACME policy of each CA (external account binding required? which names?) kept in memory for a
 * short while: every new order and new account reads it, and it changes about as often as the CA
 * itself. Freshness is the CA cache's (lib/cache/ca-cache.ts): a change through this process's store is seen
 * at once (`onAcmePolicyChanged`), one made elsewhere (`ca-admin edit_ca`, another instance) once the
 * entry is older than `ttlMs` — as a CA's `acme_enabled` is.
 */
import type { AcmeCaPolicy, AcmePolicyChangeEvents, AcmeStore } from '../../ports';
import { DEFAULT_CA_CACHE_TTL_MS } from '../../cache/ca-cache';
import { RecordCache, subscribeIfSupported } from '../../cache/record-cache';

export class AcmePolicyCache {
  private readonly cache: RecordCache<{ id: number; policy: AcmeCaPolicy }>;
  private readonly unsubscribe: (() => void) | null;

  constructor(
    private readonly acme: Pick<AcmeStore, 'policy'> & Partial<AcmePolicyChangeEvents>,
    options: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.cache = new RecordCache((entry) => String(entry.id), {
      ttlMs: options.ttlMs ?? DEFAULT_CA_CACHE_TTL_MS,
      maxEntries: 1000,
      now: options.now,
    });
    this.unsubscribe = subscribeIfSupported(acme.onAcmePolicyChanged?.bind(acme), (caId) => this.cache.invalidate(caId));
  }

  async policy(caId: number): Promise<AcmeCaPolicy> {
    const entry = await this.cache.readById(caId, async () => ({ id: caId, policy: await this.acme.policy(caId) }));
    return entry ? entry.policy : this.acme.policy(caId);
  }

  close(): void {
    this.unsubscribe?.();
    this.cache.clear();
  }
}
