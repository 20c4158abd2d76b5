/**
 * CRLs of a CA, built on demand and kept while nothing changed (docs/DESIGN.md "Revocation serving").
 *
 * Fresh: a CRL is cached together with the CA's revocation version (a counter the store raises in
 * the same transaction as every revocation of a certificate or child CA of that CA). Before a cached
 * CRL is served the version is read again — at most every `versionCheckMs` (default 1 s), and at once
 * after a revocation through this process — so a revocation made through any instance on the same
 * database is listed by every instance's next CRL within about a second, and by this instance's at
 * once. Unlike the original, revoking never waits for a periodic job.
 *
 * Cheap: concurrent requests for one CRL share one build; a build is a listing of the CA's revoked
 * certificates (an index scan), one CRL Number from the store (never reused, also across instances
 * and after a restore from a backup: RFC 5280 §5.2.3, lib/ca/crl-number.ts) and one signature.
 */
import { NO_METRICS, type CaRecord, type CrlScope, type MetricsSink, type RevocationStore } from '../ports';
import { crlToPem, buildCrl } from '../x509/revocation/crl';
import { caFacts, defaultHashFor } from './ca-facts';
import { crlNumberFloor } from './crl-number';
import { caSigner, type KeyBackends } from './key-backends';

/** Certificates that expired (or start) within this margin of now are still listed, as upstream does. */
const GRACE_MS = 10 * 60_000;

export interface CrlSettings {
  /** `nextUpdate − thisUpdate`. Default 1 day. */
  validityMs?: number;
  /** How long a cached CRL is served before the revocation version is read again. Default 1000 ms. */
  versionCheckMs?: number;
  now?: () => Date;
  /** Told how long each build took and how large its CRL is (docs/operations/metrics.md). */
  metrics?: MetricsSink;
}

export interface PublishedCrl {
  der: Buffer;
  pem: string;
  crlNumber: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
  /** A strong validator for HTTP caching: CA, scope and CRL Number. */
  etag: string;
}

interface Entry {
  crl: PublishedCrl;
  version: number;
  checkedAt: number;
}

export class CrlPublisher {
  private readonly cache = new Map<string, Entry>();
  private readonly building = new Map<string, Promise<PublishedCrl>>();
  private readonly validityMs: number;
  private readonly versionCheckMs: number;
  private readonly now: () => Date;
  private readonly metrics: MetricsSink;

  constructor(
    private readonly store: RevocationStore,
    private readonly keyBackends: KeyBackends,
    settings: CrlSettings = {},
  ) {
    this.validityMs = settings.validityMs ?? 86_400_000;
    this.versionCheckMs = settings.versionCheckMs ?? 1000;
    this.now = settings.now ?? (() => new Date());
    this.metrics = settings.metrics ?? NO_METRICS;
  }

  /** Something was revoked through this process: read the versions again before serving. */
  revocationSeen(): void {
    for (const entry of this.cache.values()) entry.checkedAt = -Infinity;
  }

  /** The current CRL of `ca` for `scope`. */
  async current(ca: CaRecord, scope: CrlScope): Promise<PublishedCrl> {
    const key = `${ca.id}:${scope}`;
    const now = this.now().getTime();
    const entry = this.cache.get(key);
    // Renew well before nextUpdate, so that no client ever holds an expired CRL from us.
    const usable = entry && entry.crl.nextUpdate.getTime() - now > this.validityMs / 2;
    if (entry && usable && now - entry.checkedAt < this.versionCheckMs) return entry.crl;
    const version = await this.store.revocationVersion(ca.id);
    if (entry && usable && entry.version === version) {
      entry.checkedAt = now;
      return entry.crl;
    }
    let pending = this.building.get(key);
    if (!pending) {
      pending = this.build(ca, scope, version).finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  /**
   * A new CRL now (`ca-admin generate_crls`, `dump_crl`), whatever is cached. `all` covers child CAs
   * and end-entity certificates together (no Issuing Distribution Point), as `dump_crl` without a
   * scope option does.
   */
  async build(ca: CaRecord, scope: CrlScope | 'all', version?: number): Promise<PublishedCrl> {
    const started = performance.now();
    const seenVersion = version ?? (await this.store.revocationVersion(ca.id));
    const now = this.now();
    const thisUpdate = new Date(Math.floor(now.getTime() / 1000) * 1000);
    const facts = caFacts(ca);
    const signer = await caSigner(this.keyBackends, ca);
    const window = { from: new Date(now.getTime() - GRACE_MS), to: new Date(now.getTime() + GRACE_MS) };
    const scopes: CrlScope[] = scope === 'all' ? ['ca', 'user'] : [scope];
    const revoked = (await Promise.all(scopes.map((s) => this.store.listRevoked(ca.id, s, window)))).flat();
    const crlNumber = await this.store.nextCrlNumber(ca.id, scope, crlNumberFloor(now));
    const der = await buildCrl(
      {
        issuerDer: facts.subjectDer,
        authorityKeyIdentifier: Buffer.from(facts.keyIdentifier, 'base64'),
        crlNumber,
        thisUpdate,
        nextUpdate: new Date(thisUpdate.getTime() + this.validityMs),
        scope: scope === 'all' ? null : scope,
        entries: revoked.map((r) => ({
          serialNumber: BigInt(`0x${r.serial}`),
          revocationDate: r.revokedDate,
          reason: r.revokedReason,
          invalidityDate: r.compromised,
        })),
        signature: { hash: defaultHashFor(facts.keyType, facts.signatureHash) },
      },
      signer,
    );
    const crl: PublishedCrl = {
      der,
      pem: crlToPem(der),
      crlNumber,
      thisUpdate,
      nextUpdate: new Date(thisUpdate.getTime() + this.validityMs),
      etag: `"${ca.serial}-${scope}-${crlNumber}"`,
    };
    if (scope !== 'all') this.cache.set(`${ca.id}:${scope}`, { crl, version: seenVersion, checkedAt: now.getTime() });
    const seconds = (performance.now() - started) / 1000;
    this.metrics.crlBuilt({ ca: ca.name, scope, seconds, bytes: der.length, entries: revoked.length });
    return crl;
  }
}
