/**
 * CA rows kept in memory for a short while for the API's read paths (view/list certificates, view a
 * CA, sign, get an order): on the embedded database every statement costs about a millisecond, and
 * a CA row is the largest one a request reads.
 *
 * Freshness, as for users (adapters/auth/user-cache.ts):
 * - in this process, a change through a store with `onCaChanged` (the knex store has it) drops the
 *   entry as soon as it is committed — e.g. `PUT /ca/{serial}/` disabling the API is effective on the
 *   next request;
 * - changes made elsewhere (ca-admin or another instance on the same PostgreSQL) are seen once the
 *   entry is older than `ttlMs` (default 2 s).
 * What must be exact is not read from here: updating a CA and revoking or resigning a certificate
 * read the CA from the store, and the order worker re-reads the CA (revoked? expired?) before it signs.
 * Unknown serials are not cached.
 */
import { hasCaChangeEvents, type CaRecord, type Store } from '../ports';

export const DEFAULT_CA_CACHE_TTL_MS = 2000;

export interface CaCacheOptions {
  /** Default 2000 ms; 0 disables the cache. */
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  ca: CaRecord;
  expires: number;
}

/** Never more than this many CAs kept (an installation has a handful). */
const MAX_ENTRIES = 1000;

export class CaCache implements Pick<Store, 'findCaBySerial' | 'getCa'> {
  private readonly byId = new Map<number, Entry>();
  private readonly idBySerial = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private generation = 0;
  private readonly unsubscribe: (() => void) | null = null;

  constructor(
    private readonly store: Pick<Store, 'findCaBySerial' | 'getCa'>,
    options: CaCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_CA_CACHE_TTL_MS;
    this.now = options.now ?? Date.now;
    if (hasCaChangeEvents(store)) {
      try {
        const off: unknown = store.onCaChanged((id) => this.invalidate(id));
        if (typeof off === 'function') this.unsubscribe = off as () => void;
        else if (off instanceof Promise) off.catch(() => undefined); // not the capability after all
      } catch {
        // as above: a store without working change events gets the TTL only
      }
    }
  }

  async findCaBySerial(serial: string): Promise<CaRecord | null> {
    const id = this.idBySerial.get(serial);
    const hit = id === undefined ? null : this.fresh(id);
    if (hit) return hit;
    return this.remember(this.generation, await this.store.findCaBySerial(serial));
  }

  async getCa(id: number): Promise<CaRecord | null> {
    const hit = this.fresh(id);
    if (hit) return hit;
    return this.remember(this.generation, await this.store.getCa(id));
  }

  invalidate(id: number): void {
    this.generation++;
    this.drop(id);
  }

  close(): void {
    this.unsubscribe?.();
    this.generation++;
    this.byId.clear();
    this.idBySerial.clear();
  }

  private drop(id: number): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    if (this.idBySerial.get(entry.ca.serial) === id) this.idBySerial.delete(entry.ca.serial);
  }

  private fresh(id: number): CaRecord | null {
    const entry = this.byId.get(id);
    if (!entry) return null;
    if (entry.expires > this.now()) return entry.ca;
    this.drop(id);
    return null;
  }

  /** Keep what a read returned, unless an invalidation happened while it was under way. */
  private remember(generationAtStart: number, ca: CaRecord | null): CaRecord | null {
    if (!ca || this.ttlMs <= 0 || generationAtStart !== this.generation) return ca;
    this.drop(ca.id);
    this.byId.set(ca.id, { ca, expires: this.now() + this.ttlMs });
    this.idBySerial.set(ca.serial, ca.id);
    while (this.byId.size > MAX_ENTRIES) this.drop(this.byId.keys().next().value as number);
    return ca;
  }
}
