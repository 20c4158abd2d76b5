/**
 * Delegate keys per CA (its OCSP responder, its SCEP registration authority), made or loaded once,
 * renewed before they expire: what ocsp-delegate.ts and scep-ra.ts share.
 *
 * Several instances may find a delegate missing at once; each then makes one, the last one stored
 * wins, and every one of them is a valid delegate of the CA — nothing to coordinate.
 */
import type { CaRecord } from '../ports';

/** How one kind of delegate is found and made. */
export interface DelegateMaker<K extends { notAfter: Date }> {
  /** The stored delegate of `ca` when it is usable at `now` for at least `renewBeforeMs` more; else null. */
  load(ca: CaRecord, now: Date, renewBeforeMs: number): Promise<K | null>;
  /** Make, certify and store a new delegate. */
  issue(ca: CaRecord, now: Date): Promise<K>;
}

export class DelegateCache<K extends { notAfter: Date }> {
  private readonly cache = new Map<number, Promise<K>>();

  constructor(
    private readonly maker: DelegateMaker<K>,
    private readonly renewBeforeMs: number,
  ) {}

  /** The delegate of `ca`, valid for at least `renewBeforeMs` more. */
  async forCa(ca: CaRecord, now: Date): Promise<K> {
    const cached = this.cache.get(ca.id);
    if (cached) {
      const key = await cached.catch(() => null);
      if (key && key.notAfter.getTime() - now.getTime() > this.renewBeforeMs) return key;
      if (this.cache.get(ca.id) === cached) this.cache.delete(ca.id);
    }
    let pending = this.cache.get(ca.id);
    if (!pending) {
      pending = this.loadOrIssue(ca, now);
      this.cache.set(ca.id, pending);
      pending.catch(() => this.cache.delete(ca.id));
    }
    return pending;
  }

  /** Make a new delegate now, whatever exists. */
  async renew(ca: CaRecord, now: Date): Promise<K> {
    const pending = this.maker.issue(ca, now);
    this.cache.set(ca.id, pending);
    return pending;
  }

  private async loadOrIssue(ca: CaRecord, now: Date): Promise<K> {
    return (await this.maker.load(ca, now, this.renewBeforeMs)) ?? this.maker.issue(ca, now);
  }
}
