/**
 * Changes of ACME objects as lib/acme/state-machine.ts decides them (`AcmeStateChange`), applied in
 * ONE statement (no transaction): a chain of data-modifying CTEs — the challenges, then the
 * authorizations, then the orders — each step a conditional update (row `id` while its status is one
 * of `from`) that applies only if the step before it in its change did. Nothing here knows what a
 * status means: an order's `countDown` decrements `authorizations_pending` (migration 0008) and takes
 * `to` only at zero, and two count-downs of one order at once serialise on the order's row, so exactly
 * one of them reaches zero.
 *
 * A change with a job (lib/ports/jobs.ts) writes it in the same statement: an attempt's outcome
 * settles the job first — only while the runner holds its lease — and the steps apply only if it did;
 * work made pending (finalize) gets its job, leased to the runner that makes the first attempt, after
 * the steps, only if they applied (../jobs.ts builds that SQL).
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
import { leaseNewJobsSql, settleHeldJobsSql } from '../jobs';

const { acmeOrders, acmeAuthorizations, acmeChallenges } = TABLES;

/** Whether each change applied its first step; in input order. */
export async function applyChanges(db: Knex, changes: readonly AcmeStateChange[]): Promise<boolean[]> {
  const results: boolean[] = changes.map(() => false);
  let rest = changes.map((change, index) => ({ change, index }));
  while (rest.length > 0) {
    const touched = new Set<string>();
    const round: typeof rest = [];
    const later: typeof rest = [];
    for (const item of rest) {
      const keys = rowsOf(item.change);
      if (keys.some((k) => touched.has(k))) later.push(item);
      else {
        keys.forEach((k) => touched.add(k));
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
  if (change.job) keys.push(`j${change.job.kind}:${change.job.reference}`);
  return keys;
}

/** An attempt's outcome for the change's job, written first (the steps apply only if it was); undefined: none. */
const settling = (change: AcmeStateChange): boolean => change.job !== undefined && change.job.to.state !== 'lease';

/** `SET col = CASE WHEN v.has_col THEN v.col ELSE t.col END`: a column a step writes only when it names it. */
const maybe = (column: string, table: string): string =>
  `${column} = CASE WHEN v.has_${column} THEN v.${column} ELSE ${table}.${column} END`;

type Level = 'jb' | 'ch' | 'az' | 'o';

/** One statement; the indexes of the changes whose first step applied. */
async function applyRound(db: Knex, round: readonly { change: AcmeStateChange; index: number }[]): Promise<Set<number>> {
  const now = new Date();
  const ctes: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const levels: Level[] = [];
  /** The CTE of each change's nearest earlier step: its step applies only if the index is there. */
  const chained = (change: AcmeStateChange, before: Level[]): Level | null => {
    for (const level of before.slice().reverse()) {
      if (
        (level === 'jb' && settling(change)) ||
        (level === 'ch' && change.challenge) ||
        (level === 'az' && change.authorization) ||
        (level === 'o' && change.order)
      )
        return level;
    }
    return null;
  };
  /** SQL: the step of the row of `v` applies: it has no earlier step, or that step applied. */
  const afterEarlier = (): string =>
    `(v.after IS NULL${levels.map((level) => ` OR (v.after = '${level}' AND v.k IN (SELECT k FROM ${level}))`).join('')})`;

  // An attempt's outcome settles its job first, while its runner holds the lease (../jobs.ts).
  const settled = round.filter(({ change }) => settling(change));
  if (settled.length > 0) {
    const values = `(VALUES ${settled.map(() => '(?::integer, ?::text, ?::text, ?::text, ?::boolean, ?::integer, ?::integer, ?::text)').join(', ')})
             AS v (k, kind, reference, owner, done, delay_ms, attempts, error)`;
    ctes.push(`jb AS (${settleHeldJobsSql(values)} RETURNING v.k)`);
    for (const { change, index } of settled) {
      const { kind, reference, owner, to } = change.job!;
      const retry = to.state === 'retry' ? to : null;
      bindings.push(index, kind, reference, owner, retry === null, retry?.delayMs ?? 0, retry?.attempts ?? 0, retry?.error ?? null);
    }
    levels.push('jb');
  }

  const challenges = round.filter(({ change }) => change.challenge);
  if (challenges.length > 0) {
    ctes.push(`ch AS (
      UPDATE ?? c SET status = v.to, ${['validated', 'error'].map((col) => maybe(col, 'c')).join(', ')},
             attempts = c.attempts + v.attempts
        FROM (VALUES ${challenges.map(() => '(?::integer, ?::integer, ?::text, ?::text, ?::text, ?::boolean, ?::timestamptz, ?::boolean, ?::json, ?::integer)').join(', ')})
             AS v (k, id, "from", "to", after, has_validated, validated, has_error, error, attempts)
       WHERE c.id = v.id AND c.status = ANY (string_to_array(v."from", ',')) AND ${afterEarlier()}
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
        chained(change, ['jb']),
        set.validated !== undefined,
        set.validated ?? null,
        set.error !== undefined,
        set.error === undefined || set.error === null ? null : toJson(set.error),
        set.countAttempt ? 1 : 0,
      );
    }
    levels.push('ch');
  }

  const authorizations = round.filter(({ change }) => change.authorization);
  if (authorizations.length > 0) {
    ctes.push(`az AS (
      UPDATE ?? a SET status = v.to
        FROM (VALUES ${authorizations.map(() => '(?::integer, ?::integer, ?::text, ?::text, ?::text)').join(', ')}) AS v (k, id, "from", "to", after)
       WHERE a.id = v.id AND a.status = ANY (string_to_array(v."from", ',')) AND ${afterEarlier()}
      RETURNING v.k)`);
    bindings.push(acmeAuthorizations);
    for (const { change, index } of authorizations) {
      const step = change.authorization!;
      bindings.push(index, step.id, step.from.join(','), step.to, chained(change, ['jb', 'ch']));
    }
    levels.push('az');
  }

  const orders = round.filter(({ change }) => change.order);
  if (orders.length > 0) {
    ctes.push(`o AS (
      UPDATE ?? o SET
             authorizations_pending = o.authorizations_pending - v.count_down,
             status = CASE WHEN v.count_down = 1 AND o.authorizations_pending > 1 THEN o.status ELSE v.to END,
             ${['error', 'request', 'source_address'].map((col) => maybe(col, 'o')).join(', ')},
             attempts = o.attempts + v.attempts,
             updated = ?
        FROM (VALUES ${orders.map(() => '(?::integer, ?::integer, ?::text, ?::text, ?::text, ?::integer, ?::boolean, ?::json, ?::boolean, ?::jsonb, ?::boolean, ?::text, ?::integer)').join(', ')})
             AS v (k, id, "from", "to", after, count_down, has_error, error, has_request, request, has_source_address, source_address, attempts)
       WHERE o.id = v.id AND o.status = ANY (string_to_array(v."from", ',')) AND ${afterEarlier()}
      RETURNING v.k)`);
    bindings.push(acmeOrders, now);
    for (const { change, index } of orders) {
      const step = change.order!;
      const set = step.set ?? {};
      bindings.push(
        index,
        step.id,
        step.from.join(','),
        step.to,
        chained(change, ['jb', 'ch', 'az']),
        step.countDown ? 1 : 0,
        set.error !== undefined,
        set.error === undefined || set.error === null ? null : toJson(set.error),
        set.request !== undefined,
        set.request === undefined || set.request === null ? null : JSON.stringify(set.request),
        set.sourceAddress !== undefined,
        set.sourceAddress ?? null,
        set.countAttempt ? 1 : 0,
      );
    }
    levels.push('o');
  }

  // Work made pending (finalize): its job, leased to the runner that makes the first attempt now, if
  // the change's first step applied.
  const leased = round.filter(({ change }) => change.job?.to.state === 'lease');
  if (leased.length > 0) {
    const select = `SELECT v.kind, v.reference, v.owner, v.lease_ms
        FROM (VALUES ${leased.map(() => '(?::integer, ?::text, ?::text, ?::text, ?::integer, ?::text)').join(', ')})
             AS v (k, kind, reference, owner, lease_ms, after)
       WHERE ${afterEarlier()}`;
    ctes.push(`jq AS (${leaseNewJobsSql(select)})`);
    for (const { change, index } of leased) {
      const { kind, reference, owner, to } = change.job!;
      bindings.push(index, kind, reference, owner, to.state === 'lease' ? to.leaseMs : 0, firstLevel(change));
    }
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
    if (applied.get(firstLevel(change))?.has(index)) first.add(index);
  }
  return first;
}

/** The CTE of the change's first step of an ACME object (its job's is before it, when it settles one). */
function firstLevel(change: AcmeStateChange): Level {
  return change.challenge ? 'ch' : change.authorization ? 'az' : 'o';
}
