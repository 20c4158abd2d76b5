/**
 * What the database must say after an instance died mid-issuance (issue 47, "one authority entry"),
 * read from its rows and events, for kill-between.test.ts:
 * - `expectCertificatesOnce`: the one request of a case stored exactly one certificate — the one the
 *   client received, byte for byte — announced by exactly one `certificate.issued` event;
 * - `expectIntentsSettled`: no intent left pending once the survivor's lease has lapsed;
 * - `expectOneTbsPerSerial`: a serial names one TBSCertificate: unique among intents and among
 *   certificates, and a certificate was stored only as its intent's `tbs` signed (the store refuses any
 *   other since migration 0036, test/issuance/intents.test.ts, and then lets the intent's copy go);
 * - `expectIntentsOfCase`: the dead instance's intent was there; one intent of the case issued — the
 *   received certificate's — the others failed; every certificate of the case had its intent.
 */
import { TABLES } from '../../../adapters/store/knex/tables';
import { hasEventLog, type DomainEvent } from '../../../lib/ports';
import { parseCertificate } from '../../../lib/x509/certificate';
import type { TestDatabase } from '../../helpers/database';
import type { Received } from './doors';
import { until } from './hosts';

interface CertificateRow {
  id: number;
  ca_id: number;
  serial: string;
  der: Buffer;
}

export interface IntentRow {
  id: number;
  ca_id: number;
  serial: string;
  door: string;
  answers: string | null;
  tbs: Buffer | null;
  certificate_id: number | null;
  failed: Date | null;
  failure: string | null;
}

/** Where a case starts: the last certificate, event and intent before it. */
export interface Mark {
  certificate: number;
  event: number;
  intent: number;
}

const maxId = async (db: TestDatabase, table: string): Promise<number> =>
  Number(((await db.knex(table).max('id as id').first()) as { id: string | number | null }).id ?? 0);

export async function mark(db: TestDatabase): Promise<Mark> {
  return {
    certificate: await maxId(db, TABLES.certificates),
    event: await maxId(db, TABLES.events),
    intent: await maxId(db, TABLES.issuanceIntents),
  };
}

async function eventsAfter(db: TestDatabase, id: number): Promise<DomainEvent[]> {
  if (!hasEventLog(db.store)) throw new Error('the knex store keeps events');
  const out: DomainEvent[] = [];
  for (let page = await db.store.eventsSince(id, 500); page.length; page = await db.store.eventsSince(out[out.length - 1].id, 500)) {
    out.push(...page);
  }
  return out;
}

const certificatesAfter = async (db: TestDatabase, id: number): Promise<CertificateRow[]> =>
  (await db.knex(TABLES.certificates).where('id', '>', id).orderBy('id').select('id', 'ca_id', 'serial', 'der')) as CertificateRow[];

/** Exactly one certificate stored since `since`: `received`, with one `certificate.issued` event. Returns its row. */
export async function expectCertificatesOnce(db: TestDatabase, since: Mark, received: Received): Promise<CertificateRow> {
  const stored = await certificatesAfter(db, since.certificate);
  const serial = parseCertificate(received.der).serial;
  // The client's answers and the case's intents ride along, to say what happened should it fail.
  const context = { answers: received.answers, intents: (await intentsAfter(db, since.intent)).map(describeIntent) };
  expect({ stored: stored.map((c) => c.serial), ...context }).toEqual({ stored: [serial], ...context });
  expect(Buffer.from(stored[0].der).equals(received.der)).toBe(true);
  const issued = (await eventsAfter(db, since.event)).filter((e) => e.type === 'certificate.issued');
  expect(issued.map((e) => e.serial)).toEqual([serial]);
  return stored[0];
}

const intentsAfter = async (db: TestDatabase, id: number): Promise<IntentRow[]> =>
  (await db.knex(TABLES.issuanceIntents).where('id', '>', id).orderBy('id')) as IntentRow[];

const isPending = (i: IntentRow) => i.certificate_id === null && i.failed === null;

/** Every intent ends issued or failed: polls until none is pending (the survivor sweeps those past its lease). */
export async function expectIntentsSettled(db: TestDatabase, timeoutMs = 20_000): Promise<IntentRow[]> {
  let last: IntentRow[] = [];
  try {
    return await until(
      'no pending intent',
      async () => {
        last = (await db.knex(TABLES.issuanceIntents).orderBy('id')) as IntentRow[];
        return !last.some(isPending) && last;
      },
      timeoutMs,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; pending: ${JSON.stringify(last.filter(isPending).map(describeIntent))}`, { cause: e });
  }
}

export const describeIntent = (i: IntentRow) => ({
  id: i.id,
  serial: i.serial,
  door: i.door,
  answers: i.answers,
  certificate_id: i.certificate_id,
  failed: i.failed !== null,
  failure: i.failure,
});

/**
 * No serial names two TBSCertificates: unique among intents and among certificates, and a stored
 * certificate is its intent's `tbs`, signed. Nothing answered twice: one issued intent per thing answered.
 */
export async function expectOneTbsPerSerial(db: TestDatabase): Promise<void> {
  const intents = (await db.knex(TABLES.issuanceIntents).orderBy('id')) as IntentRow[];
  const certificates = (await db.knex(TABLES.certificates).orderBy('id').select('id', 'ca_id', 'serial', 'der')) as CertificateRow[];
  const key = (r: { ca_id: number; serial: string }) => `${r.ca_id}:${r.serial}`;
  expect(duplicates(intents.map(key))).toEqual([]);
  expect(duplicates(certificates.map(key))).toEqual([]);
  const intentOf = new Map(intents.map((i) => [key(i), i]));
  for (const certificate of certificates) {
    const intent = intentOf.get(key(certificate));
    if (!intent) continue; // stored before intents existed, or outside the CA's signing (an import)
    // Stored only if it was the intent's TBS signed (the trigger's check), which then let its copy go.
    expect({ serial: certificate.serial, certificate_id: intent.certificate_id, tbs: intent.tbs }).toEqual({
      serial: certificate.serial,
      certificate_id: certificate.id,
      tbs: null,
    });
  }
  // Nothing answered twice: one issued intent per order, ACME order, enrolment transaction.
  expect(duplicates(intents.filter((i) => i.certificate_id !== null && i.answers !== null).map((i) => i.answers as string))).toEqual([]);
  // An intent marked issued names a certificate of its own serial.
  const byId = new Map(certificates.map((c) => [c.id, c]));
  for (const intent of intents.filter((i) => i.certificate_id !== null)) {
    expect({ intent: intent.id, certificate: key(byId.get(intent.certificate_id as number) ?? { ca_id: 0, serial: 'none' }) }).toEqual({
      intent: intent.id,
      certificate: key(intent),
    });
  }
}

/** How the survivor finished the dead instance's issuance (kill-between.test.ts, `LEASES`). */
export type Takeover = 'issued anew' | 'signed again';

/**
 * The intents of a case (since `since`): the first is the dead instance's — recorded before it
 * signed, so there whatever the point it died at. Exactly one intent is issued, the received
 * certificate's, and every other one failed; every certificate stored in the case has its intent.
 * `issued anew`: A's intent failed as interrupted, a later one is issued. `signed again`: A's is the
 * only intent, and issued (B signed its recorded TBSCertificate again).
 */
export async function expectIntentsOfCase(db: TestDatabase, since: Mark, stored: CertificateRow, takeover: Takeover): Promise<void> {
  const intents = await intentsAfter(db, since.intent);
  const seen = intents.map(describeIntent);
  const issued = expect.objectContaining({ certificate_id: stored.id, serial: stored.serial, failed: false });
  const interrupted = expect.objectContaining({ certificate_id: null, failed: true, failure: expect.stringMatching(/^Interrupted/) });
  if (takeover === 'signed again') expect(seen).toEqual([issued]);
  else {
    expect(seen[0]).toEqual(interrupted);
    expect(seen.slice(1).filter((i) => i.certificate_id !== null)).toEqual([issued]);
  }
  expect(seen.filter((i) => i.certificate_id === null && !i.failed)).toEqual([]);
  for (const certificate of await certificatesAfter(db, since.certificate)) {
    expect(intents.some((i) => i.ca_id === certificate.ca_id && i.serial === certificate.serial)).toBe(true);
  }
}

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
}
