/**
 * The ACME server's durable work (migration 0006): challenges being validated (`processing`, due at
 * `next_attempt`) and orders being issued (`processing` with their sign request). Runners on any
 * instance claim them with a lease (../work.ts): a crashed runner's lease lapses and
 * another takes the work over, so nothing stays `processing` for ever.
 */
import type { Knex } from 'knex';
import type {
  AcmeErrorDocument,
  CertificateRecord,
  ClaimedIssuance,
  ClaimedValidation,
  NewCertificate,
  SignRequest,
  ValidationResult,
} from '../../../../lib/ports';
import { CERTIFICATE_COLUMN_LIST, CERTIFICATE_PLACEHOLDERS, certificateBindings, certificateColumnsOf } from '../certificate-values';
import { insertedCertificateRecord } from '../certificates';
import { certificateStored } from '../event-data';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import { writingEvents, type EventBatch } from '../transaction-events';
import { toJson, toNumber } from '../values';
import { challengeFromRow } from './rows';
import { findOrderById } from './orders';
import { claimLeases, leaseFree, leaseFromValues, NO_LEASE, NO_LEASE_SQL, retryLeaseAt } from '../work';

const { acmeOrders, acmeAuthorizations, acmeChallenges, acmeAccounts, certificates } = TABLES;

/** A challenge to start validating — the one with `slug` at CA `caId`, if `accountId` owns it — leased to `owner` (`startValidations`). */
export interface ValidationStart {
  caId: number;
  slug: string;
  accountId: number;
  owner: string;
  leaseMs: number;
  now: Date;
}

/**
 * Pending challenges of pending authorizations of open orders start (RFC 8555 §7.5.1), each leased
 * to its `owner`, who validates it now; null where one was not pending or is not the account's
 * (anything else is left as it is), and for the second of two starts of one challenge in the group.
 * One statement — the challenge found by its slug, so the request needs no read before it — which
 * also returns what validating and answering need: the identifier, the account key's thumbprint, the
 * authorization's slug.
 */
export async function startValidations(db: Knex, starts: readonly ValidationStart[]): Promise<(ClaimedValidation | null)[]> {
  const result = (await db.raw(
    `UPDATE ?? c SET status = 'processing', next_attempt = v.now, error = NULL, ${leaseFromValues('v')}
       FROM (VALUES ${starts.map(() => '(?::text, ?::integer, ?::integer, ?::timestamptz, ?::text, ?::timestamptz)').join(', ')})
            AS v (slug, ca_id, account_id, now, owner, leased_until),
            ?? a, ?? o, ?? acc
      WHERE c.slug = v.slug AND c.status = 'pending' AND a.id = c.authorization_id AND a.status = 'pending'
        AND o.id = a.order_id AND o.status = 'pending' AND o.expires > v.now AND o.ca_id = v.ca_id AND o.account_id = v.account_id
        AND acc.id = o.account_id
      RETURNING c.*, a.identifier_type, a.identifier_value, a.order_id, a.slug AS authorization_slug, acc.thumbprint`,
    [
      acmeChallenges,
      ...starts.flatMap((s) => [s.slug, s.caId, s.accountId, s.now, s.owner, new Date(s.now.getTime() + s.leaseMs)]),
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

/**
 * Record an attempt in ONE statement (no transaction): the challenge, its authorization and its order
 * move together. A valid authorization decrements its order's `authorizations_pending` (migration
 * 0008) and the order becomes `ready` when none is left: two validations of one order finishing at
 * once serialise on the order row, so exactly one of them makes it `ready`. False when the challenge
 * was no longer `processing` (nothing changed).
 */
export async function recordValidation(db: Knex, challengeId: number, result: ValidationResult): Promise<boolean> {
  const now = new Date();
  const clearLease = `${NO_LEASE_SQL}, attempts = attempts + 1`;
  let sql: string;
  let bindings: Knex.RawBinding[];
  if (result.kind === 'retry') {
    sql = `UPDATE ?? SET ${clearLease}, error = ?, next_attempt = ? WHERE id = ? AND status = 'processing' RETURNING id`;
    bindings = [acmeChallenges, toJson(result.problem), result.at, challengeId];
  } else if (result.kind === 'valid') {
    sql = `WITH ch AS (
             UPDATE ?? SET ${clearLease}, status = 'valid', validated = ?, error = NULL WHERE id = ? AND status = 'processing' RETURNING id, authorization_id
           ),
           az AS (
             UPDATE ?? SET status = 'valid' WHERE id = (SELECT authorization_id FROM ch) AND status = 'pending' RETURNING order_id
           ),
           o AS (
             UPDATE ?? SET authorizations_pending = authorizations_pending - 1,
                    status = CASE WHEN authorizations_pending <= 1 THEN 'ready' ELSE status END, updated = ?
              WHERE id = (SELECT order_id FROM az) AND status = 'pending'
           )
           SELECT id FROM ch`;
    bindings = [acmeChallenges, result.at, challengeId, acmeAuthorizations, acmeOrders, now];
  } else {
    const error = toJson(result.problem);
    sql = `WITH ch AS (
             UPDATE ?? SET ${clearLease}, status = 'invalid', error = ? WHERE id = ? AND status = 'processing' RETURNING id, authorization_id
           ),
           az AS (
             UPDATE ?? SET status = 'invalid' WHERE id = (SELECT authorization_id FROM ch) AND status = 'pending'
           ),
           o AS (
             UPDATE ?? SET status = 'invalid', error = ?, updated = ?
              WHERE id = (SELECT a.order_id FROM ?? a WHERE a.id = (SELECT authorization_id FROM ch)) AND status IN ('pending', 'ready')
           )
           SELECT id FROM ch`;
    bindings = [acmeChallenges, error, challengeId, acmeAuthorizations, acmeOrders, error, now, acmeAuthorizations];
  }
  const { rows } = (await db.raw(sql, bindings)) as { rows: Row[] };
  return rows.length === 1;
}

/**
 * Several attempts (`recordValidation`): the valid ones in ONE statement — each order's
 * `authorizations_pending` decremented by its authorizations made valid here, `ready` at zero —,
 * the others (rare: retries and failures) one by one. A challenge named twice is recorded once.
 */
export async function recordValidations(
  db: Knex,
  records: readonly { challengeId: number; result: ValidationResult }[],
): Promise<boolean[]> {
  const results: boolean[] = records.map(() => false);
  const valid: { index: number; challengeId: number; at: Date }[] = [];
  const seen = new Set<number>();
  for (const [index, { challengeId, result }] of records.entries()) {
    if (seen.has(challengeId)) continue;
    seen.add(challengeId);
    if (result.kind === 'valid') valid.push({ index, challengeId, at: result.at });
    else results[index] = await recordValidation(db, challengeId, result);
  }
  if (valid.length === 1) results[valid[0].index] = await recordValidation(db, valid[0].challengeId, { kind: 'valid', at: valid[0].at });
  if (valid.length > 1) {
    const { rows } = (await db.raw(
      `WITH v (id, at) AS (VALUES ${valid.map(() => '(?::integer, ?::timestamptz)').join(', ')}),
       ch AS (
         UPDATE ?? c SET ${NO_LEASE_SQL}, attempts = c.attempts + 1, status = 'valid', validated = v.at, error = NULL
           FROM v WHERE c.id = v.id AND c.status = 'processing' RETURNING c.id, c.authorization_id
       ),
       az AS (
         UPDATE ?? a SET status = 'valid' WHERE a.id IN (SELECT authorization_id FROM ch) AND a.status = 'pending' RETURNING a.order_id
       ),
       d AS (SELECT order_id, count(*) AS n FROM az GROUP BY order_id),
       o AS (
         UPDATE ?? o SET authorizations_pending = o.authorizations_pending - d.n,
                status = CASE WHEN o.authorizations_pending <= d.n THEN 'ready' ELSE o.status END, updated = ?
           FROM d WHERE o.id = d.order_id AND o.status = 'pending'
       )
       SELECT id FROM ch`,
      [...valid.flatMap((v) => [v.challengeId, v.at]), acmeChallenges, acmeAuthorizations, acmeOrders, new Date()],
    )) as { rows: Row[] };
    const recorded = new Set(rows.map((r) => toNumber(r.id)));
    for (const v of valid) results[v.index] = recorded.has(v.challengeId);
  }
  return results;
}

/** An order to move from `ready` to `processing` with its sign request, leased to `owner` (`startIssuances`). */
export interface IssuanceStart {
  orderId: number;
  request: SignRequest;
  owner: string;
  leaseMs: number;
  /** Where the finalize request came from, for the certificate's event (migration 0014). */
  address?: string | null;
}

/** `ready` → `processing` with the sign request, for several orders in one statement; false where one was not `ready`. */
export async function startIssuances(db: Knex, starts: readonly IssuanceStart[]): Promise<boolean[]> {
  const now = new Date();
  const result = (await db.raw(
    `UPDATE ?? o SET status = 'processing', request = v.request, ${leaseFromValues('v')}, updated = ?,
            source_address = v.address
       FROM (VALUES ${starts.map(() => '(?::integer, ?::jsonb, ?::text, ?::timestamptz, ?::text)').join(', ')}) AS v (id, request, owner, leased_until, address)
      WHERE o.id = v.id AND o.status = 'ready'
      RETURNING o.id`,
    [
      acmeOrders,
      now,
      ...starts.flatMap((s) => [s.orderId, JSON.stringify(s.request), s.owner, new Date(now.getTime() + s.leaseMs), s.address ?? null]),
    ],
  )) as { rows: Row[] };
  const started = new Set(result.rows.map((row) => toNumber(row.id)));
  return starts.map((s) => started.delete(s.orderId));
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

/** A certificate to store for the order it was issued for (`completeIssuances`). */
export interface IssuanceCompletion {
  orderId: number;
  certificate: NewCertificate;
}

/**
 * Store certificates and make their orders `valid`, in ONE statement: the order rows are locked
 * first (`FOR UPDATE`), so of two runners finishing one order only the first finds it still
 * `processing`; the other stores nothing (null), as does the second of two completions of one order
 * in the group. Each `certificate.issued` event names the certificate's requester: the account of its order.
 */
export function completeIssuances(db: Knex, completions: readonly IssuanceCompletion[]): Promise<(CertificateRecord | null)[]> {
  // The certificates' events last, in a transaction of their own or the one `db` is (../transaction-events.ts).
  return writingEvents(db, null, null, (db, batch) => completeWithEvents(db, completions, batch));
}

async function completeWithEvents(
  db: Knex,
  completions: readonly IssuanceCompletion[],
  batch: EventBatch,
): Promise<(CertificateRecord | null)[]> {
  const now = new Date();
  const first = new Map<number, number>();
  completions.forEach((c, index) => first.has(c.orderId) || first.set(c.orderId, index));
  const unique = [...first.values()].map((index) => completions[index]);
  const { rows } = (await db.raw(
    `WITH incoming (order_id, ${CERTIFICATE_COLUMN_LIST}) AS (VALUES ${unique.map(() => `(?::integer, ${CERTIFICATE_PLACEHOLDERS})`).join(', ')}),
     o AS (SELECT id FROM ?? WHERE id IN (SELECT order_id FROM incoming) AND status = 'processing' AND certificate_id IS NULL FOR UPDATE),
     cert AS (
       INSERT INTO ?? (${CERTIFICATE_COLUMN_LIST}, created, updated)
       SELECT ${certificateColumnsOf('i')}, ?, ? FROM incoming i JOIN o ON o.id = i.order_id
       RETURNING id, ca_id, serial
     ),
     done AS (
       UPDATE ?? ao SET status = 'valid', certificate_id = c.id, request = NULL, ${NO_LEASE_SQL}, updated = ?
         FROM incoming i JOIN cert c ON c.ca_id = i.ca_id AND c.serial = i.serial
        WHERE ao.id = i.order_id
     )
     SELECT i.order_id, c.id FROM incoming i JOIN cert c ON c.ca_id = i.ca_id AND c.serial = i.serial`,
    [...unique.flatMap((c) => [c.orderId, ...certificateBindings(c.certificate)]), acmeOrders, certificates, now, now, acmeOrders, now],
  )) as { rows: Row[] };
  const stored = new Map(rows.map((r) => [toNumber(r.order_id), toNumber(r.id)]));
  for (const c of unique) if (stored.has(c.orderId)) batch.events.push(certificateStored(c.certificate, null, batch.actor));
  return completions.map((c, index) => {
    const id = stored.get(c.orderId);
    return id !== undefined && first.get(c.orderId) === index ? insertedCertificateRecord(c.certificate, id, now) : null;
  });
}

export async function failIssuance(db: Knex, orderId: number, problem: AcmeErrorDocument, retryAt: Date | null): Promise<void> {
  const now = new Date();
  if (retryAt) {
    await db(acmeOrders)
      .where({ id: orderId, status: 'processing' })
      .update({ attempts: db.raw('attempts + 1'), ...retryLeaseAt(retryAt), error: toJson(problem), updated: now });
    return;
  }
  await db(acmeOrders)
    .where({ id: orderId, status: 'processing' })
    .update({ status: 'invalid', error: toJson(problem), request: null, ...NO_LEASE, updated: now });
}
