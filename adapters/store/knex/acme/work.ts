/**
 * The ACME server's durable work (migration 0006): challenges being validated (`processing`, due at
 * `next_attempt`) and orders being issued (`processing` with their sign request). Runners on any
 * instance claim them with `FOR UPDATE SKIP LOCKED` and a lease: a crashed runner's lease lapses and
 * another takes the work over, so nothing stays `processing` for ever.
 */
import type { Knex } from 'knex';
import type { AcmeErrorDocument, ClaimedIssuance, ClaimedValidation, SignRequest, ValidationResult } from '../../../../lib/ports';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import { toJson, toNullableDate, toNumber } from '../values';
import { challengeFromRow } from './rows';
import { findOrderById } from './orders';

const { acmeOrders, acmeAuthorizations, acmeChallenges, acmeAccounts } = TABLES;

/** Work no live lease holds. */
function unleased(q: Knex.QueryBuilder, table: string, now: Date): Knex.QueryBuilder {
  return q.andWhere((w) => w.whereNull(`${table}.lease_expires`).orWhere(`${table}.lease_expires`, '<', now));
}

/** Call inside a transaction: a pending challenge of a pending authorization of an open order starts. */
export async function startValidation(db: Knex, challengeId: number, now: Date): Promise<void> {
  await db.raw(
    `UPDATE ?? c SET status = 'processing', next_attempt = ?, error = NULL
       FROM ?? a, ?? o
      WHERE c.id = ? AND c.status = 'pending' AND a.id = c.authorization_id AND a.status = 'pending'
        AND o.id = a.order_id AND o.status = 'pending' AND o.expires > ?`,
    [acmeChallenges, now, acmeAuthorizations, acmeOrders, challengeId, now],
  );
}

export async function claimValidations(db: Knex, owner: string, leaseMs: number, limit: number): Promise<ClaimedValidation[]> {
  const now = new Date();
  return db.transaction(async (trx) => {
    const due = unleased(
      trx(acmeChallenges).select('id').where({ status: 'processing' }).andWhere('next_attempt', '<=', now),
      acmeChallenges,
      now,
    )
      .orderBy('next_attempt', 'asc')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    const rows = (await trx(`${acmeChallenges} as c`)
      .whereIn('c.id', due)
      .update({ lease_owner: owner, lease_expires: new Date(now.getTime() + leaseMs) })
      .returning('c.*')) as Row[];
    if (rows.length === 0) return [];
    const context = (await trx(`${acmeAuthorizations} as a`)
      .join(`${acmeOrders} as o`, 'o.id', 'a.order_id')
      .join(`${acmeAccounts} as acc`, 'acc.id', 'o.account_id')
      .whereIn(
        'a.id',
        rows.map((r) => toNumber(r.authorization_id)),
      )
      .select('a.id', 'a.identifier_type', 'a.identifier_value', 'a.order_id', 'acc.thumbprint')) as Row[];
    const byAuthz = new Map(context.map((r) => [toNumber(r.id), r]));
    return rows.flatMap((row) => {
      const a = byAuthz.get(toNumber(row.authorization_id));
      if (!a) return [];
      return [
        {
          challenge: challengeFromRow(row),
          identifier: { type: String(a.identifier_type) as 'dns' | 'ip', value: String(a.identifier_value) },
          thumbprint: String(a.thumbprint),
          orderId: toNumber(a.order_id),
        },
      ];
    });
  });
}

/**
 * Call inside a transaction. The order row is locked first: two validations of the same order's
 * last authorizations, finishing at once, then see each other's result, and exactly one of them
 * makes the order `ready`.
 */
export async function recordValidation(db: Knex, challengeId: number, result: ValidationResult): Promise<void> {
  const now = new Date();
  // The challenge's authorization and order, the order row locked (FOR UPDATE OF o) in the same statement.
  const found = (await db(`${acmeChallenges} as c`)
    .join(`${acmeAuthorizations} as a`, 'a.id', 'c.authorization_id')
    .join(`${acmeOrders} as o`, 'o.id', 'a.order_id')
    .where('c.id', challengeId)
    .select('c.authorization_id', 'a.order_id')
    .forUpdate('o')
    .first()) as Row | undefined;
  if (!found) return;
  const authorizationId = toNumber(found.authorization_id);
  const orderId = toNumber(found.order_id);
  const clearLease = { lease_owner: null, lease_expires: null };
  if (result.kind === 'retry') {
    await db(acmeChallenges)
      .where({ id: challengeId, status: 'processing' })
      .update({ ...clearLease, error: toJson(result.problem), next_attempt: result.at, attempts: db.raw('attempts + 1') });
    return;
  }
  if (result.kind === 'valid') {
    const moved = await db(acmeChallenges)
      .where({ id: challengeId, status: 'processing' })
      .update({ ...clearLease, status: 'valid', validated: result.at, error: null, attempts: db.raw('attempts + 1') });
    if (moved === 0) return;
    await db(acmeAuthorizations).where({ id: authorizationId, status: 'pending' }).update({ status: 'valid' });
    // Ready once no authorization of the order is left that is not valid.
    await db(acmeOrders)
      .where({ id: orderId, status: 'pending' })
      .whereNotExists((q) => q.select(db.raw('1')).from(acmeAuthorizations).where({ order_id: orderId }).whereNot({ status: 'valid' }))
      .update({ status: 'ready', updated: now });
    return;
  }
  const moved = await db(acmeChallenges)
    .where({ id: challengeId, status: 'processing' })
    .update({ ...clearLease, status: 'invalid', error: toJson(result.problem), attempts: db.raw('attempts + 1') });
  if (moved === 0) return;
  await db(acmeAuthorizations).where({ id: authorizationId }).whereIn('status', ['pending']).update({ status: 'invalid' });
  await db(acmeOrders)
    .where({ id: orderId })
    .whereIn('status', ['pending', 'ready'])
    .update({ status: 'invalid', error: toJson(result.problem), updated: now });
}

export async function nextValidationDue(db: Knex): Promise<Date | null> {
  const row = (await db(acmeChallenges).where({ status: 'processing' }).min({ due: 'next_attempt' }).first()) as Row | undefined;
  return toNullableDate(row?.due);
}

export async function startIssuance(db: Knex, orderId: number, request: SignRequest, owner: string, leaseMs: number): Promise<boolean> {
  const now = new Date();
  const moved = await db(acmeOrders)
    .where({ id: orderId, status: 'ready' })
    .update({
      status: 'processing',
      request: JSON.stringify(request),
      lease_owner: owner,
      lease_expires: new Date(now.getTime() + leaseMs),
      updated: now,
    });
  return moved === 1;
}

export async function claimIssuances(db: Knex, owner: string, leaseMs: number, limit: number): Promise<ClaimedIssuance[]> {
  const now = new Date();
  const ids = await db.transaction(async (trx) => {
    const due = unleased(trx(acmeOrders).select('id').where({ status: 'processing' }).whereNull('certificate_id'), acmeOrders, now)
      .orderBy('id', 'asc')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    const rows = (await trx(acmeOrders)
      .whereIn('id', due)
      .update({ lease_owner: owner, lease_expires: new Date(now.getTime() + leaseMs) })
      .returning(['id'])) as Row[];
    return rows.map((r) => toNumber(r.id));
  });
  const claimed: ClaimedIssuance[] = [];
  for (const id of ids) {
    const order = await findOrderById(db, id);
    if (order?.request) claimed.push({ order, request: order.request, attempts: (await attemptsOf(db, id)) ?? 0 });
  }
  return claimed;
}

async function attemptsOf(db: Knex, orderId: number): Promise<number | null> {
  const row = (await db(acmeOrders).where({ id: orderId }).select('attempts').first()) as Row | undefined;
  return row ? toNumber(row.attempts) : null;
}

/** Call inside the transaction that stored the certificate. False when the order was not (or no longer) being issued. */
export async function markIssued(db: Knex, orderId: number, certificateId: number): Promise<boolean> {
  const moved = await db(acmeOrders)
    .where({ id: orderId, status: 'processing' })
    .whereNull('certificate_id')
    .update({ status: 'valid', certificate_id: certificateId, request: null, lease_owner: null, lease_expires: null, updated: new Date() });
  return moved === 1;
}

export async function failIssuance(db: Knex, orderId: number, problem: AcmeErrorDocument, retryAt: Date | null): Promise<void> {
  const now = new Date();
  if (retryAt) {
    await db(acmeOrders)
      .where({ id: orderId, status: 'processing' })
      .update({ attempts: db.raw('attempts + 1'), lease_owner: 'retry', lease_expires: retryAt, error: toJson(problem), updated: now });
    return;
  }
  await db(acmeOrders)
    .where({ id: orderId, status: 'processing' })
    .update({ status: 'invalid', error: toJson(problem), request: null, lease_owner: null, lease_expires: null, updated: now });
}
