/**
 * Delegate keys per CA (its OCSP responder, its SCEP registration authority), made or loaded once,
 * renewed before they expire: what ocsp-delegate.ts and the SCEP RA (lib/scep/ra.ts) share.
 *
 * Renewal is due `renewBeforeMs` before a delegate expires, but only where a new one would end later:
 * a delegate's certificate never outlives its CA (signing-ca.ts), so in the CA's last days the
 * current one already ends with it, and making another on every lookup would only change the
 * certificate under clients that cached it (a SCEP client encrypts to the RA certificate of its
 * GetCACert) and fill the inventory with copies.
 *
 * Several instances may find a delegate missing at once; each then makes one, the last one stored
 * wins, and every one of them is a valid delegate of the CA — nothing to coordinate.
 */
import type { CaRecord } from '../ports';
import { floorToMinute, validityEnd } from './signing-ca';

/** How one kind of delegate is found and made. */
export interface DelegateMaker<K extends { notAfter: Date }> {
  /** The stored delegate of `ca` when it is usable at `now` (valid then, not revoked); else null. */
  load(ca: CaRecord, now: Date): Promise<K | null>;
  /** Make, certify and store a new delegate. */
  issue(ca: CaRecord, now: Date): Promise<K>;
  /** The validity a new delegate of `ca` asks for (its certificate then ends with the CA's if that is sooner). */
  validityMs(ca: CaRecord): number;
}

export class DelegateCache<K extends { notAfter: Date }> {
  private readonly cache = new Map<number, Promise<K>>();

  constructor(
    private readonly maker: DelegateMaker<K>,
    private readonly renewBeforeMs: number,
  ) {}

  /** The delegate of `ca`: the current one unless renewal is due (`keeps`) and a new one would end later. */
  async forCa(ca: CaRecord, now: Date): Promise<K> {
    const cached = this.cache.get(ca.id);
    if (cached) {
      const key = await cached.catch(() => null);
      if (key && this.keeps(ca, key, now)) return key;
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

  /**
   * Whether `key`, usable when it was loaded, is still the one to use at `now`: unexpired, and either
   * not due for renewal or as long-lived as a new one would be (the same end as issuing computes).
   * Renewal is due `renewBeforeMs` before the end, or at half its life where that is later: a
   * delegate made for no longer than the margin (a one-day OCSP responder, renewed a day before it
   * expires) would otherwise be due again a minute after it was made.
   */
  private keeps(ca: CaRecord, key: K, now: Date): boolean {
    if (key.notAfter <= now) return false;
    const validityMs = this.maker.validityMs(ca);
    if (key.notAfter.getTime() - now.getTime() > Math.min(this.renewBeforeMs, validityMs / 2)) return true;
    return validityEnd(ca, floorToMinute(now), validityMs) <= key.notAfter;
  }

  private async loadOrIssue(ca: CaRecord, now: Date): Promise<K> {
    const stored = await this.maker.load(ca, now);
    return stored && this.keeps(ca, stored, now) ? stored : this.maker.issue(ca, now);
  }
}
