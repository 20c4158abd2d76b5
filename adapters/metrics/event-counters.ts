/**
 * Domain events (lib/ports/events.ts) → the counters of definitions.ts. An event names its CA and
 * certificate by serial; the counters are labelled by CA name, profile and key type instead, which
 * stay few however many certificates there are:
 *
 * - CA names are read once per CA (`findCaBySerial`) and kept; `ca.created` and `ca.updated` events
 *   carry the name, so a rename is followed;
 * - profile and key type of the certificates a page of events names are read in one statement
 *   (`MetricsReadings.certificateFacts`); a store without that capability gives `unknown`.
 *
 * A read that fails rejects the page (the follower reads it again), before anything was counted.
 */
import {
  certificateKey,
  type CaReader,
  type CertificateFacts,
  type CertificateRef,
  type DomainEvent,
  type MetricsReadings,
} from '../../lib/ports';
import type { CaMetrics } from './definitions';

const UNKNOWN = 'unknown';

/** The certificates whose facts label their events. */
const NEEDS_FACTS = new Set<string>(['certificate.issued', 'certificate.revoked']);

function text(value: unknown, fallback = UNKNOWN): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

export class EventCounters {
  private readonly caNames = new Map<string, string>();

  constructor(
    private readonly cas: Pick<CaReader, 'findCaBySerial'>,
    private readonly readings: MetricsReadings | null,
    private readonly m: CaMetrics,
  ) {}

  /** Count one page of events, in order. */
  async count(events: readonly DomainEvent[]): Promise<void> {
    await this.learnCaNames(events);
    const facts = await this.factsOf(events);
    for (const event of events) this.countOne(event, facts);
  }

  private async learnCaNames(events: readonly DomainEvent[]): Promise<void> {
    const unknown = new Set(events.flatMap((e) => (e.caSerial !== null && !this.caNames.has(e.caSerial) ? [e.caSerial] : [])));
    for (const serial of unknown) {
      const ca = await this.cas.findCaBySerial(serial);
      this.caNames.set(serial, ca?.name ?? serial);
    }
  }

  private async factsOf(events: readonly DomainEvent[]): Promise<Map<string, CertificateFacts>> {
    if (!this.readings) return new Map();
    const refs: CertificateRef[] = events.flatMap((e) =>
      NEEDS_FACTS.has(e.type) && e.caSerial !== null && e.serial !== null ? [{ caSerial: e.caSerial, serial: e.serial }] : [],
    );
    return refs.length > 0 ? this.readings.certificateFacts(refs) : new Map();
  }

  private countOne(event: DomainEvent, facts: ReadonlyMap<string, CertificateFacts>): void {
    const { m } = this;
    m.events.inc({ type: event.type });
    const ca = event.caSerial === null ? UNKNOWN : (this.caNames.get(event.caSerial) ?? event.caSerial);
    const fact =
      event.caSerial !== null && event.serial !== null
        ? facts.get(certificateKey({ caSerial: event.caSerial, serial: event.serial }))
        : undefined;
    const keyType = fact?.keyType ?? UNKNOWN;
    switch (event.type) {
      case 'certificate.issued':
        m.certificatesIssued.inc({
          ca,
          profile: text(fact?.profile, text(event.data.profile)),
          key_type: keyType,
          protocol: text(event.actor.protocol),
        });
        break;
      case 'certificate.revoked':
        m.certificatesRevoked.inc({ ca, profile: text(fact?.profile), key_type: keyType, reason: text(event.data.reason, 'unspecified') });
        break;
      case 'order.failed':
        m.ordersFailed.inc({ ca, profile: text(event.data.profile) });
        break;
      case 'ca.created':
      case 'ca.updated':
        if (event.caSerial !== null && typeof event.data.name === 'string') this.caNames.set(event.caSerial, event.data.name);
        break;
    }
  }
}
