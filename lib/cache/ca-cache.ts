/**
 * CA rows kept in memory for a short while for the read paths of every way in (the REST API's view/list
 * certificates, view a CA, sign, get an order; the revocation endpoints' issuer, CRL and OCSP lookups):
 * a CA row is the largest one a request reads, and most requests read one. A router that mounts several
 * modules gives them one cache (lib/router.ts).
 *
 * Freshness (the rules of lib/cache/record-cache.ts):
 * - in this process, a change through the store (its `onCaChanged`) drops the
 *   entry as soon as it is committed — e.g. `PUT /ca/{serial}/` disabling the API is effective on the
 *   next request;
 * - changes made elsewhere (ca-admin or another instance on the same PostgreSQL) are seen once the
 *   entry is older than `ttlMs` (default 2 s).
 * What must be exact is not read from here: updating a CA and revoking or resigning a certificate
 * read the CA from the store, and the order worker re-reads the CA (revoked? expired?) before it signs.
 */
import { RecordCache, subscribeIfSupported } from './record-cache';
import type { CaRecord, Store } from '../ports';

export const DEFAULT_CA_CACHE_TTL_MS = 2000;

export interface CaCacheOptions {
  /** Default 2000 ms; 0 disables the cache. */
  ttlMs?: number;
  now?: () => number;
}

export class CaCache implements Pick<Store, 'findCaBySerial' | 'getCa' | 'listCas'> {
  private readonly cache: RecordCache<CaRecord>;
  private readonly unsubscribe: (() => void) | null;
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** Every CA (the default CA and a CA by name are chosen from it), with when it expires. */
  private list: { value: Promise<CaRecord[]>; expires: number } | null = null;

  constructor(
    private readonly store: Pick<Store, 'findCaBySerial' | 'getCa' | 'listCas' | 'onCaChanged'>,
    options: CaCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_CA_CACHE_TTL_MS;
    this.now = options.now ?? Date.now;
    // An installation has a handful of CAs; the bound only guards against a pathological one.
    this.cache = new RecordCache((ca) => ca.serial, {
      ttlMs: options.ttlMs ?? DEFAULT_CA_CACHE_TTL_MS,
      maxEntries: 1000,
      now: options.now,
    });
    this.unsubscribe = subscribeIfSupported(store.onCaChanged.bind(store), (id) => this.invalidate(id));
  }

  /**
   * Every CA, as `listCas()` without a filter: for the enrolment endpoints, which name their CA by
   * serial or name or take the default CA. Kept like a record; any CA's change drops it.
   */
  listCas(): Promise<CaRecord[]> {
    if (this.list && this.list.expires > this.now()) return this.list.value;
    const value = this.store.listCas();
    const entry = { value, expires: this.ttlMs > 0 ? this.now() + this.ttlMs : 0 };
    this.list = entry;
    // A failed read is not kept; nor is one that an invalidation overtook (it replaced `this.list`).
    value.catch(() => {
      if (this.list === entry) this.list = null;
    });
    return value;
  }

  findCaBySerial(serial: string): Promise<CaRecord | null> {
    return this.cache.read(serial, () => this.store.findCaBySerial(serial));
  }

  getCa(id: number): Promise<CaRecord | null> {
    return this.cache.readById(id, () => this.store.getCa(id));
  }

  invalidate(id: number): void {
    this.cache.invalidate(id);
    this.list = null;
  }

  close(): void {
    this.unsubscribe?.();
    this.cache.clear();
    this.list = null;
  }
}
