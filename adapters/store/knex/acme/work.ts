/**
 * The ACME server's durable work (migration 0006): challenges being validated (`processing`, due at
 * `next_attempt`) and orders being issued (`processing` with their sign request). Runners on any
 * instance claim them with a lease (../work.ts): a crashed runner's lease lapses and
 * another takes the work over, so nothing stays `processing` for ever. What an attempt changes is
 * lib/acme/state-machine.ts's decision, applied by changes.ts (or, with the certificate, here).
 */
import type { Knex } from 'knex';
import type {
  AcmeOrderStep,
  AcmeValidationStart,
  CertificateRecord,
  ClaimedIssuance,
  ClaimedValidation,
  NewCertificate,
} from '../../../../lib/ports';
import { CERTIFICATE_COLUMN_LIST, CERTIFICATE_PLACEHOLDERS, certificateBindings, certificateColumnsOf } from '../certificate-values';
import { insertedCertificateRecord } from '../certificates';
import { certificateStored } from '../event-data';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import { eventsInStatement } from '../event-writer';
import { toNumber } from '../values';
import { challengeFromRow } from './rows';
import { findOrderById } from './orders';
import { claimLeases, leaseFree, leaseFromValues, NO_LEASE_SQL } from '../work';

const { acmeOrders, acmeAuthorizations, acmeChallenges, acmeAccounts, certificates } = TABLES;

/** A challenge to start validating — the one with `slug` at CA `caId`, if `accountId` owns it — leased to `owner` (`startValidations`). */
export interface ValidationStart {
  caId: number;
  slug: string;
  accountId: number;
  owner: string;
  leaseMs: number;
  now: Date;
  /** The statuses (lib/acme/state-machine.ts `onChallengeStart`). */
  start: AcmeValidationStart;
}

/**
 * Challenges start as their `start` says (RFC 8555 §7.5.1), of orders not past `expires`, each leased
 * to its `owner`, who validates it now; null where one was not in those statuses or is not the account's
 * (anything else is left as it is), and for the second of two starts of one challenge in the group.
 * One statement — the challenge found by its slug, so the request needs no read before it — which
 * also returns what validating and answering need: the identifier, the account key's thumbprint, the
 * authorization's slug.
 */
export async function startValidations(db: Knex, starts: readonly ValidationStart[]): Promise<(ClaimedValidation | null)[]> {
  const result = (await db.raw(
    `UPDATE ?? c SET status = v.to, next_attempt = v.now, error = NULL, ${leaseFromValues('v')}
       FROM (VALUES ${starts.map(() => '(?::text, ?::integer, ?::integer, ?::timestamptz, ?::text, ?::timestamptz, ?::text, ?::text, ?::text, ?::text)').join(', ')})
            AS v (slug, ca_id, account_id, now, owner, leased_until, "from", "to", authorization_in, order_in),
            ?? a, ?? o, ?? acc
      WHERE c.slug = v.slug AND c.status = ANY (string_to_array(v."from", ','))
        AND a.id = c.authorization_id AND a.status = ANY (string_to_array(v.authorization_in, ','))
        AND o.id = a.order_id AND o.status = ANY (string_to_array(v.order_in, ',')) AND o.expires > v.now
        AND o.ca_id = v.ca_id AND o.account_id = v.account_id
        AND acc.id = o.account_id
      RETURNING c.*, a.identifier_type, a.identifier_value, a.order_id, a.slug AS authorization_slug, acc.thumbprint`,
    [
      acmeChallenges,
      ...starts.flatMap((s) => [
        s.slug,
        s.caId,
        s.accountId,
        s.now,
        s.owner,
        new Date(s.now.getTime() + s.leaseMs),
        s.start.from.join(','),
        s.start.to,
        s.start.authorizationIn.join(','),
        s.start.orderIn.join(','),
      ]),
      acmeAuthorizations,
      acmeOrders,
      acmeAccounts,
    ],
  )) as { rows: Row[] };
  const bySlug = new Map(result.rows.map((row) => [String(row.slug), row]));
  return starts.map((s) => {
    const row = bySlug.get(s.slug);
    bySlug.delete(s.slug); // a second start of the same challenge in this group did not start it
    return row ? claimedFromRow(row, row) : null;
  });
}

function claimedFromRow(challenge: Row, context: Row): ClaimedValidation {
  return {
    challenge: challengeFromRow(challenge),
    identifier: { type: String(context.identifier_type) as 'dns' | 'ip', value: String(context.identifier_value) },
    thumbprint: String(context.thumbprint),
    orderId: toNumber(context.order_id),
    authorizationSlug: String(context.authorization_slug),
  };
}

export async function claimValidations(db: Knex, owner: string, leaseMs: number, limit: number): Promise<ClaimedValidation[]> {
  const now = new Date();
  return db.transaction(async (trx) => {
    const due = trx(acmeChallenges)
      .select('id')
      .where({ status: 'processing' })
      .andWhere('next_attempt', '<=', now)
      .andWhere(leaseFree(now))
      .orderBy('next_attempt', 'asc')
      .limit(limit);
    const rows = await claimLeases(trx, acmeChallenges, due, owner, leaseMs);
    if (rows.length === 0) return [];
    const context = (await trx(`${acmeAuthorizations} as a`)
      .join(`${acmeOrders} as o`, 'o.id', 'a.order_id')
      .join(`${acmeAccounts} as acc`, 'acc.id', 'o.account_id')
      .whereIn(
        'a.id',
        rows.map((r) => toNumber(r.authorization_id)),
      )
      .select('a.id', 'a.identifier_type', 'a.identifier_value', 'a.order_id', 'a.slug as authorization_slug', 'acc.thumbprint')) as Row[];
    const byAuthz = new Map(context.map((r) => [toNumber(r.id), r]));
    return rows.flatMap((row) => {
      const a = byAuthz.get(toNumber(row.authorization_id));
      return a ? [claimedFromRow(row, a)] : [];
    });
  });
}

export async function claimIssuances(db: Knex, owner: string, leaseMs: number, limit: number): Promise<ClaimedIssuance[]> {
  const now = new Date();
  const due = db(acmeOrders)
    .select('id')
    .where({ status: 'processing' })
    .whereNull('certificate_id')
    .andWhere(leaseFree(now))
    .orderBy('id', 'asc')
    .limit(limit);
  const rows = await claimLeases(db, acmeOrders, due, owner, leaseMs, ['id', 'attempts']);
  const leased = rows.map((r) => ({ id: toNumber(r.id), attempts: toNumber(r.attempts) }));
  const claimed: ClaimedIssuance[] = [];
  for (const { id, attempts } of leased) {
    const order = await findOrderById(db, id);
    if (order?.request) claimed.push({ order, request: order.request, attempts });
  }
  return claimed;
}

/** A certificate to store for the order it was issued for, and the order's step (`completeIssuances`). */
export interface IssuanceCompletion {
  order: AcmeOrderStep;
  certificate: NewCertificate;
}

/**
 * Store certificates with their orders' steps applied (lib/acme/state-machine.ts `onIssued`), in ONE
 * statement: the order rows are locked first (`FOR UPDATE`) while in a status of the step's `from`
 * and without a certificate, so of two runners finishing one order only the first finds it so; the
 * other stores nothing (null), as does the second of two completions of one order in the group. Each
 * `certificate.issued` event names the account of its order (the certificate's requester). The order's
 * lease is let go: its work is done.
 */
export async function completeIssuances(db: Knex, completions: readonly IssuanceCompletion[]): Promise<(CertificateRecord | null)[]> {
  const now = new Date();
  const first = new Map<number, number>();
  completions.forEach((c, index) => first.has(c.order.id) || first.set(c.order.id, index));
  const unique = [...first.values()].map((index) => completions[index]);
  // Each certificate's event in the same statement, keyed by its order, appended if it was stored
  // (../event-writer.ts `eventsInStatement`): one round trip and one commit per group.
  const events = eventsInStatement(
    unique.map((c) => ({ key: String(c.order.id), event: certificateStored(c.certificate, null, null) })),
    'select s.order_id::text from stored s',
  );
  const { rows } = (await db.raw(
    `WITH incoming (order_id, "from", "to", clear_request, ${CERTIFICATE_COLUMN_LIST}) AS (
       VALUES ${unique.map(() => `(?::integer, ?::text, ?::text, ?::boolean, ${CERTIFICATE_PLACEHOLDERS})`).join(', ')}
     ),
     o AS (
       SELECT o.id FROM ?? o JOIN incoming i ON i.order_id = o.id
        WHERE o.status = ANY (string_to_array(i."from", ',')) AND o.certificate_id IS NULL FOR UPDATE OF o
     ),
     cert AS (
       INSERT INTO ?? (${CERTIFICATE_COLUMN_LIST}, created, updated)
       SELECT ${certificateColumnsOf('i')}, ?, ? FROM incoming i JOIN o ON o.id = i.order_id
       RETURNING id, ca_id, serial
     ),
     done AS (
       UPDATE ?? ao SET status = i."to", certificate_id = c.id, updated = ?,
              request = CASE WHEN i.clear_request THEN NULL ELSE ao.request END, ${NO_LEASE_SQL}
         FROM incoming i JOIN cert c ON c.ca_id = i.ca_id AND c.serial = i.serial
        WHERE ao.id = i.order_id
     ),
     stored AS (SELECT i.order_id, c.id FROM incoming i JOIN cert c ON c.ca_id = i.ca_id AND c.serial = i.serial),
     ${events.sql}
     SELECT order_id, id FROM stored`,
    [
      ...unique.flatMap(({ order, certificate }) => [
        order.id,
        order.from.join(','),
        order.to,
        order.set?.request === null,
        ...certificateBindings(certificate),
      ]),
      acmeOrders,
      certificates,
      now,
      now,
      acmeOrders,
      now,
      ...events.bindings,
    ],
  )) as { rows: Row[] };
  const stored = new Map(rows.map((r) => [toNumber(r.order_id), toNumber(r.id)]));
  return completions.map((c, index) => {
    const id = stored.get(c.order.id);
    return id !== undefined && first.get(c.order.id) === index ? insertedCertificateRecord(c.certificate, id, now) : null;
  });
}
