/**
 * Changes of ACME objects as lib/acme/state-machine.ts decides them (`AcmeStateChange`), applied in
 * ONE statement (no transaction): a chain of data-modifying CTEs — the challenges, then the
 * authorizations, then the orders — each step a conditional update (row `id` while its status is one
 * of `from`) that applies only if the step before it in its change did. Nothing here knows what a
 * status means: an order's `countDown` decrements `authorizations_pending` (migration 0008) and takes
 * `to` only at zero, and two count-downs of one order at once serialise on the order's row, so exactly
 * one of them reaches zero.
 *
 * The changes of concurrent callers are grouped (grouped.ts). A statement updates a row once, so a
 * change naming a row an earlier change of the group names goes to the next statement: changes of
 * one group apply in their order.
 */
import type { Knex } from 'knex';
import type { AcmeStateChange } from '../../../../lib/ports';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import { toJson, toNumber } from '../values';
import { leaseFromValues } from '../work';

const { acmeOrders, acmeAuthorizations, acmeChallenges } = TABLES;

/** Whether each change applied its first step; in input order. */
export async function applyChanges(db: Knex, changes: readonly AcmeStateChange[]): Promise<boolean[]> {
  const results: boolean[] = changes.map(() => false);
  let rest = changes.map((change, index) => ({ change, index }));
  while (rest.length > 0) {
    const touched = new Set<string>();
    const leases: { challenge?: boolean; order?: boolean } = {};
    const round: typeof rest = [];
    const later: typeof rest = [];
    for (const item of rest) {
      const keys = rowsOf(item.change);
      const lease = leasesOf(item.change);
      const sameLeases = (['challenge', 'order'] as const).every(
        (l) => lease[l] === undefined || leases[l] === undefined || leases[l] === lease[l],
      );
      if (keys.some((k) => touched.has(k)) || !sameLeases) later.push(item);
      else {
        keys.forEach((k) => touched.add(k));
        Object.assign(leases, lease);
        round.push(item);
      }
    }
    const applied = await applyRound(db, round);
    for (const { index } of round) results[index] = applied.has(index);
    rest = later;
  }
  return results;
}

function rowsOf(change: AcmeStateChange): string[] {
  const keys: string[] = [];
  if (change.challenge) keys.push(`c${change.challenge.id}`);
  if (change.authorization) keys.push(`a${change.authorization.id}`);
  if (change.order) keys.push(`o${change.order.id}`);
  return keys;
}

/**
 * Whether the change's challenge and order steps write the lease (undefined: no such step). The
 * steps of one statement agree, so that it writes the lease columns of all its rows of a table or of
 * none (../work.ts builds that SQL).
 */
function leasesOf(change: AcmeStateChange): { challenge?: boolean; order?: boolean } {
  return {
    challenge: change.challenge ? change.challenge.set?.lease !== undefined : undefined,
    order: change.order ? orderLease(change.order) !== undefined : undefined,
  };
}

/** An order step's lease: a runner's, none, or — for an attempt due later — one nobody holds that lapses then (claimIssuances takes lapsed leases). */
function orderLease(step: NonNullable<AcmeStateChange['order']>): { owner: string | null; until: Date } | null | undefined {
  const set = step.set ?? {};
  return set.nextAttempt ? { owner: null, until: set.nextAttempt } : set.lease;
}

/** `SET col = CASE WHEN v.has_col THEN v.col ELSE t.col END`: a column a step writes only when it names it. */
const maybe = (column: string, table: string): string =>
  `${column} = CASE WHEN v.has_${column} THEN v.${column} ELSE ${table}.${column} END`;

/** One statement; the indexes of the changes whose first step applied. */
async function applyRound(db: Knex, round: readonly { change: AcmeStateChange; index: number }[]): Promise<Set<number>> {
  const now = new Date();
  const ctes: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const levels: string[] = [];
  /** The CTE of each change's nearest earlier step: its step applies only if the index is there. */
  const chained = (change: AcmeStateChange, before: ('ch' | 'az')[]): string | null => {
    for (const level of before.slice().reverse()) {
      if ((level === 'ch' && change.challenge) || (level === 'az' && change.authorization)) return level;
    }
    return null;
  };

  const challenges = round.filter(({ change }) => change.challenge);
  const challengeLease = challenges.some(({ change }) => change.challenge?.set?.lease !== undefined);
  const orderLeases = round.some(({ change }) => change.order && orderLease(change.order) !== undefined);
  if (challenges.length > 0) {
    ctes.push(`ch AS (
      UPDATE ?? c SET status = v.to, ${['validated', 'error', 'next_attempt'].map((col) => maybe(col, 'c')).join(', ')},
             attempts = c.attempts + v.attempts${challengeLease ? `, ${leaseFromValues('v')}` : ''}
        FROM (VALUES ${challenges.map(() => '(?::integer, ?::integer, ?::text, ?::text, ?::boolean, ?::timestamptz, ?::boolean, ?::json, ?::boolean, ?::timestamptz, ?::integer, ?::text, ?::timestamptz)').join(', ')})
             AS v (k, id, "from", "to", has_validated, validated, has_error, error, has_next_attempt, next_attempt, attempts, owner, leased_until)
       WHERE c.id = v.id AND c.status = ANY (string_to_array(v."from", ','))
      RETURNING v.k)`);
    bindings.push(acmeChallenges);
    for (const { change, index } of challenges) {
      const step = change.challenge!;
      const set = step.set ?? {};
      bindings.push(
        index,
        step.id,
        step.from.join(','),
        step.to,
        set.validated !== undefined,
        set.validated ?? null,
        set.error !== undefined,
        set.error === undefined || set.error === null ? null : toJson(set.error),
        set.nextAttempt !== undefined,
        set.nextAttempt ?? null,
        set.countAttempt ? 1 : 0,
        null, // a challenge's lease is only ever let go here
        null,
      );
    }
    levels.push('ch');
  }

  const authorizations = round.filter(({ change }) => change.authorization);
  if (authorizations.length > 0) {
    ctes.push(`az AS (
      UPDATE ?? a SET status = v.to
        FROM (VALUES ${authorizations.map(() => '(?::integer, ?::integer, ?::text, ?::text, ?::text)').join(', ')}) AS v (k, id, "from", "to", after)
       WHERE a.id = v.id AND a.status = ANY (string_to_array(v."from", ',')) AND (v.after IS NULL${levels.includes('ch') ? ' OR v.k IN (SELECT k FROM ch)' : ''})
      RETURNING v.k)`);
    bindings.push(acmeAuthorizations);
    for (const { change, index } of authorizations) {
      const step = change.authorization!;
      bindings.push(index, step.id, step.from.join(','), step.to, chained(change, ['ch']));
    }
    levels.push('az');
  }

  const orders = round.filter(({ change }) => change.order);
  if (orders.length > 0) {
    const after = (level: string) => (levels.includes(level) ? `v.after = '${level}' AND v.k IN (SELECT k FROM ${level})` : 'false');
    ctes.push(`o AS (
      UPDATE ?? o SET
             authorizations_pending = o.authorizations_pending - v.count_down,
             status = CASE WHEN v.count_down = 1 AND o.authorizations_pending > 1 THEN o.status ELSE v.to END,
             ${['error', 'request', 'source_address'].map((col) => maybe(col, 'o')).join(', ')},
             attempts = o.attempts + v.attempts${orderLeases ? `, ${leaseFromValues('v')}` : ''},
             updated = ?
        FROM (VALUES ${orders.map(() => '(?::integer, ?::integer, ?::text, ?::text, ?::text, ?::integer, ?::boolean, ?::json, ?::boolean, ?::jsonb, ?::boolean, ?::text, ?::integer, ?::text, ?::timestamptz)').join(', ')})
             AS v (k, id, "from", "to", after, count_down, has_error, error, has_request, request, has_source_address, source_address,
                   attempts, owner, leased_until)
       WHERE o.id = v.id AND o.status = ANY (string_to_array(v."from", ',')) AND (v.after IS NULL OR ${after('ch')} OR ${after('az')})
      RETURNING v.k)`);
    bindings.push(acmeOrders, now);
    for (const { change, index } of orders) {
      const step = change.order!;
      const set = step.set ?? {};
      const lease = orderLease(step);
      bindings.push(
        index,
        step.id,
        step.from.join(','),
        step.to,
        chained(change, ['ch', 'az']),
        step.countDown ? 1 : 0,
        set.error !== undefined,
        set.error === undefined || set.error === null ? null : toJson(set.error),
        set.request !== undefined,
        set.request === undefined || set.request === null ? null : JSON.stringify(set.request),
        set.sourceAddress !== undefined,
        set.sourceAddress ?? null,
        set.countAttempt ? 1 : 0,
        lease?.owner ?? null,
        lease?.until ?? null,
      );
    }
    levels.push('o');
  }

  const { rows } = (await db.raw(
    `WITH ${ctes.join(',\n')}
     ${levels.map((level) => `SELECT '${level}' AS level, k FROM ${level}`).join(' UNION ALL ')}`,
    bindings,
  )) as { rows: Row[] };
  const applied = new Map<string, Set<number>>(levels.map((level) => [level, new Set<number>()]));
  for (const row of rows) applied.get(String(row.level))?.add(toNumber(row.k));
  const first = new Set<number>();
  for (const { change, index } of round) {
    const level = change.challenge ? 'ch' : change.authorization ? 'az' : 'o';
    if (applied.get(level)?.has(index)) first.add(index);
  }
  return first;
}
