/**
 * The knex store's `JobStore` (lib/ports/jobs.ts; table of migrations/0033_jobs.ts): the one claim of
 * background jobs and the statements that settle them (docs/DESIGN.md "Background jobs").
 *
 * - The claim is one `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING`: of two
 *   runners claiming at once, each gets other jobs; a job a live lease holds is not claimed again, and
 *   one whose lease lapsed (its runner died or stalled) is. Leases and due times are on the database's
 *   clock (runners may run on hosts whose clocks differ by more than a job takes).
 * - Every settling statement holds only while the caller's lease does (`lease_owner`): one that lost
 *   the job to another runner writes nothing and learns so (false).
 * - Kinds whose work changes state in statements of their own (ACME) write their job in those
 *   statements, built from the SQL below (`leaseNewJobsSql`, `settleHeldJobsSql`, `completeJobsOfSql`).
 * - The only store code with `SKIP LOCKED` and lease columns (test/architecture/work.test.ts): REST
 *   orders and ACME's work are jobs too (migrations 0034, 0035).
 */
import type { Knex } from 'knex';
import type { JobCount, JobFilter, JobLease, JobRecord, JobState, JobStore } from '../../../lib/ports';
import { mappingErrors } from './errors';
import type { Row } from './rows';
import { TABLES } from './tables';
import { toDate, toNullableDate, toNullableNumber, toNumber } from './values';

const MAX_ERROR_LENGTH = 500;
const clip = (error: string): string => error.slice(0, MAX_ERROR_LENGTH);

/** `now + ms` on the database's clock (whole milliseconds, at least 0). */
const fromNow = (ms: number): string => `clock_timestamp() + (${Math.max(0, Math.floor(ms))} * interval '1 millisecond')`;

/** The state as listed: a pending job a live lease holds is running. */
const SHOWN_STATE = `CASE WHEN state = 'pending' AND lease_until > clock_timestamp() THEN 'running' ELSE state END`;
const RETURNING = `RETURNING *, ${SHOWN_STATE} AS shown_state`;

/** SQL condition: the job bound at the first `?` while the owner bound at the second holds its lease. */
const HELD = `id = ? AND lease_owner = ? AND state = 'pending'`;

/** An array literal of kinds: names of letters, digits, `_`, `.` and `-` only. */
function kindsLiteral(kinds: readonly string[]): string {
  for (const kind of kinds) if (!/^[A-Za-z0-9_.-]{1,40}$/.test(kind)) throw new TypeError(`not a job kind: ${JSON.stringify(kind)}`);
  return `{${kinds.join(',')}}`;
}

const idsLiteral = (ids: readonly number[]): string => `{${ids.map((id) => Math.floor(id)).join(',')}}`;

export function toJob(row: Row): JobRecord {
  return {
    id: toNumber(row.id),
    kind: String(row.kind),
    reference: String(row.reference),
    state: String(row.shown_state ?? row.state) as JobState,
    runAt: toDate(row.run_at),
    attempts: toNumber(row.attempts),
    maxAttempts: toNullableNumber(row.max_attempts),
    leaseOwner: row.lease_owner == null ? null : String(row.lease_owner),
    leaseUntil: toNullableDate(row.lease_until),
    lastError: row.last_error == null ? null : String(row.last_error),
    created: toDate(row.created),
    updated: toDate(row.updated),
  };
}

/**
 * SQL: enqueue a job of `kind` for each row of `select` (columns `reference` text and `run_at`), as
 * `enqueue` does: a pending or failed job is left alone, a done one made pending again.
 */
export const enqueueSelectedSql = (kind: string, select: string): string => `
  INSERT INTO ${TABLES.jobs} (kind, reference, run_at, max_attempts)
  SELECT '${kindsLiteral([kind]).slice(1, -1)}', s.reference, s.run_at, s.max_attempts FROM (${select}) s
  ON CONFLICT (kind, reference) DO UPDATE SET state = 'pending', run_at = EXCLUDED.run_at, attempts = 0,
    max_attempts = EXCLUDED.max_attempts, last_error = NULL, lease_owner = NULL, lease_until = NULL, updated = clock_timestamp()
  WHERE ${TABLES.jobs}.state = 'done'`;

/**
 * SQL: a job of `kind` for each row of `select` (columns `reference` text, `owner` and `until`): due
 * now, leased to `owner` until `until` (both null: free to claim). For work written together with the
 * row it works on (a REST order's job in the order's INSERT, adapters/store/knex/orders.ts). Returns
 * `reference` and the lease.
 */
export const insertLeasedJobsSql = (kind: string, select: string): string => `
  INSERT INTO ${TABLES.jobs} (kind, reference, run_at, lease_owner, lease_until)
  SELECT '${kindsLiteral([kind]).slice(1, -1)}', s.reference, clock_timestamp(), s.owner, s.until FROM (${select}) s
  RETURNING reference, lease_owner, lease_until`;

/** SQL select list: the lease of the job named `alias` as `job_lease_owner` and `job_lease_until` (rows.ts `orderFromRow`). */
export const jobLeaseAsRecord = (alias: string): string =>
  `${alias}.lease_owner AS job_lease_owner, ${alias}.lease_until AS job_lease_until`;

/**
 * SQL: the pending jobs of `kind` whose reference `references` selects (one text column) and that the
 * owner bound at the `?` holds, done (in the statement that records their work); returns their
 * `reference`. The job row is what the statement locks: of two runners, only the one whose lease is
 * still on the job (checked again under its row lock) gets it back.
 */
export const completeHeldJobsSql = (kind: string, references: string): string => `
  UPDATE ${TABLES.jobs} j SET state = 'done', attempts = 0, last_error = NULL, lease_owner = NULL, lease_until = NULL, updated = clock_timestamp()
  WHERE j.kind = '${kindsLiteral([kind]).slice(1, -1)}' AND j.state = 'pending' AND j.lease_owner = ? AND j.reference IN (${references})
  RETURNING j.reference`;

/** SQL: the pending job of `kind` whose reference is bound at the `?` done, whoever holds it. */
export const completeJobSql = (kind: string): string => `
  UPDATE ${TABLES.jobs} SET state = 'done', attempts = 0, last_error = NULL, lease_owner = NULL, lease_until = NULL, updated = clock_timestamp()
  WHERE kind = '${kindsLiteral([kind]).slice(1, -1)}' AND reference = ?::text AND state = 'pending'`;

/** The pending jobs of `kind` for `references` that `owner` holds let go: any runner may claim them at once. */
export async function releaseHeldJobs(db: Knex, kind: string, references: readonly string[], owner: string): Promise<void> {
  if (references.length === 0) return;
  await db(TABLES.jobs)
    .where({ kind, state: 'pending', lease_owner: owner })
    .whereIn('reference', [...references])
    .update({ lease_owner: null, lease_until: null, updated: db.raw('clock_timestamp()') });
}

/** The pending job of `kind` for the reference `on` names, left-joined to `query` as `j` with its lease as a record's lease columns. */
export function withJobLease(db: Knex, query: Knex.QueryBuilder, kind: string, reference: string): Knex.QueryBuilder {
  return query
    .leftJoin(`${TABLES.jobs} as j`, (on) =>
      on
        .on('j.kind', db.raw('?', [kind]))
        .andOn('j.reference', db.raw(reference))
        .andOn('j.state', db.raw('?', ['pending'])),
    )
    .select(db.raw(jobLeaseAsRecord('j')));
}

/** SQL: the lease of the job bound at the two `?`s (id, owner) renewed for `leaseMs`; returns its id while held. */
export const renewHeldJobSql = (leaseMs: number): string =>
  `UPDATE ${TABLES.jobs} SET lease_until = ${fromNow(Math.max(1, leaseMs))}, updated = clock_timestamp() WHERE ${HELD} RETURNING id`;

/**
 * SQL (a data-modifying statement, for a CTE): for each row of `select` (columns `kind`, `reference`
 * text, `owner` text, `lease_ms` integer), its job made pending now and leased to `owner` for
 * `lease_ms` — work that became pending in the same statement, whose first attempt its owner makes at
 * once (an ACME validation or issuance). A job of that kind and reference left from before is taken over.
 */
export const leaseNewJobsSql = (select: string): string => `
  INSERT INTO ${TABLES.jobs} (kind, reference, run_at, lease_owner, lease_until)
  SELECT s.kind, s.reference, clock_timestamp(), s.owner, clock_timestamp() + (greatest(1, s.lease_ms) * interval '1 millisecond') FROM (${select}) s
  ON CONFLICT (kind, reference) DO UPDATE SET state = 'pending', run_at = EXCLUDED.run_at, attempts = 0, max_attempts = NULL,
    last_error = NULL, lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until, updated = clock_timestamp()`;

/**
 * SQL (for a CTE; the caller appends its `RETURNING`): the jobs named by `values` — a FROM item `v`
 * with columns `kind`, `reference`, `owner` text, `done` boolean, `delay_ms`, `attempts` integer,
 * `error` text — settled while `owner` holds each one's lease, as `complete` (`done`) or `retryLater`
 * do: an attempt's outcome written with the change of state it made, in one statement.
 */
export const settleHeldJobsSql = (values: string): string => `
  UPDATE ${TABLES.jobs} j SET state = CASE WHEN v.done THEN 'done' ELSE 'pending' END,
    run_at = CASE WHEN v.done THEN j.run_at ELSE clock_timestamp() + (greatest(0, v.delay_ms) * interval '1 millisecond') END,
    attempts = CASE WHEN v.done THEN 0 ELSE v.attempts END, last_error = CASE WHEN v.done THEN NULL ELSE left(v.error, ${MAX_ERROR_LENGTH}) END,
    lease_owner = NULL, lease_until = NULL, updated = clock_timestamp()
  FROM ${values}
  WHERE j.kind = v.kind AND j.reference = v.reference AND j.lease_owner = v.owner AND j.state = 'pending'`;

/**
 * SQL (for a CTE): the pending jobs of `kind` whose reference `references` selects (one text column)
 * done, whoever holds them: the work they stood for was finished in the same statement (an ACME order
 * whose certificate was stored; a runner still at it finds the job gone at its next settling write).
 */
export const completeJobsOfSql = (kind: string, references: string): string => `
  UPDATE ${TABLES.jobs} SET state = 'done', attempts = 0, last_error = NULL, lease_owner = NULL, lease_until = NULL, updated = clock_timestamp()
  WHERE kind = '${kindsLiteral([kind]).slice(1, -1)}' AND state = 'pending' AND reference IN (${references})`;

/**
 * Start the pending job of `kind` for `reference` over: due now, no attempts, its lease ended (so
 * that a runner at work on it stops at its next settling statement). A replay of a webhook does this.
 */
export async function restartJob(db: Knex, kind: string, reference: string): Promise<void> {
  await db(TABLES.jobs)
    .where({ kind, reference, state: 'pending' })
    .update({
      run_at: db.raw('clock_timestamp()'),
      attempts: 0,
      last_error: null,
      lease_owner: null,
      lease_until: null,
      updated: db.raw('clock_timestamp()'),
    });
}

export class KnexJobStore implements JobStore {
  constructor(private readonly db: Knex) {}

  enqueue(kind: string, reference: string, options: { runAt?: Date; maxAttempts?: number } = {}): Promise<JobRecord> {
    return mappingErrors(async () => {
      const select = `SELECT ?::text AS reference, coalesce(?::timestamptz, clock_timestamp()) AS run_at, ?::integer AS max_attempts`;
      const made = (await this.db.raw(`${enqueueSelectedSql(kind, select)} ${RETURNING}`, [
        reference,
        options.runAt ?? null,
        options.maxAttempts ?? null,
      ])) as { rows: Row[] };
      if (made.rows[0]) return toJob(made.rows[0]);
      const kept = (await this.db.raw(`SELECT *, ${SHOWN_STATE} AS shown_state FROM ${TABLES.jobs} WHERE kind = ? AND reference = ?`, [
        kind,
        reference,
      ])) as { rows: Row[] };
      return toJob(kept.rows[0]);
    });
  }

  claim(kinds: readonly string[], owner: string, limit: number, leaseMs: number, except: readonly number[] = []): Promise<JobRecord[]> {
    return mappingErrors(async () => {
      if (kinds.length === 0 || limit <= 0) return [];
      const result = (await this.db.raw(
        `UPDATE ${TABLES.jobs} SET lease_owner = ?, lease_until = ${fromNow(Math.max(1, leaseMs))}, updated = clock_timestamp()
         WHERE id IN (
           SELECT id FROM ${TABLES.jobs}
           WHERE state = 'pending' AND run_at <= clock_timestamp() AND (lease_until IS NULL OR lease_until < clock_timestamp())
             AND kind = ANY(?::text[]) AND NOT (id = ANY(?::bigint[]))
           ORDER BY run_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
         ${RETURNING}`,
        [owner, kindsLiteral(kinds), idsLiteral(except), Math.floor(limit)],
      )) as { rows: Row[] };
      return result.rows.map(toJob).sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || a.id - b.id);
    });
  }

  complete(lease: JobLease): Promise<boolean> {
    return this.settle(lease, `state = 'done', attempts = 0, last_error = NULL, lease_owner = NULL, lease_until = NULL`);
  }

  retryLater(lease: JobLease, delayMs: number, error: string, attempts?: number): Promise<boolean> {
    const counted = attempts === undefined ? 'attempts + 1' : String(Math.max(0, Math.floor(attempts)));
    return this.settle(
      lease,
      `run_at = ${fromNow(delayMs)}, attempts = ${counted}, last_error = ?, lease_owner = NULL, lease_until = NULL`,
      [clip(error)],
    );
  }

  reschedule(lease: JobLease, delayMs: number): Promise<boolean> {
    return this.settle(lease, `run_at = ${fromNow(delayMs)}, attempts = 0, last_error = NULL, lease_owner = NULL, lease_until = NULL`);
  }

  fail(lease: JobLease, error: string, attempts: number): Promise<boolean> {
    return this.settle(lease, `state = 'failed', attempts = ?, last_error = ?, lease_owner = NULL, lease_until = NULL`, [
      Math.max(0, Math.floor(attempts)),
      clip(error),
    ]);
  }

  release(lease: JobLease): Promise<boolean> {
    return this.settle(lease, 'lease_owner = NULL, lease_until = NULL');
  }

  renew(lease: JobLease, leaseMs: number): Promise<boolean> {
    return mappingErrors(async () => {
      const result = (await this.db.raw(renewHeldJobSql(leaseMs), [lease.id, lease.owner])) as { rows: Row[] };
      return result.rows.length > 0;
    });
  }

  getJob(id: number): Promise<JobRecord | null> {
    return mappingErrors(async () => {
      const result = (await this.db.raw(`SELECT *, ${SHOWN_STATE} AS shown_state FROM ${TABLES.jobs} WHERE id = ?`, [id])) as {
        rows: Row[];
      };
      return result.rows[0] ? toJob(result.rows[0]) : null;
    });
  }

  listJobs(filter: JobFilter = {}): Promise<JobRecord[]> {
    return mappingErrors(async () => {
      const where: string[] = [];
      const bindings: Knex.Value[] = [];
      if (filter.kind !== undefined) {
        where.push('kind = ?');
        bindings.push(filter.kind);
      }
      if (filter.state !== undefined) {
        where.push(`${SHOWN_STATE} = ?`);
        bindings.push(filter.state);
      }
      const limit = filter.limit === undefined ? '' : `LIMIT ${Math.max(0, Math.floor(filter.limit))}`;
      const result = (await this.db.raw(
        `SELECT *, ${SHOWN_STATE} AS shown_state FROM ${TABLES.jobs} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC ${limit}`,
        bindings,
      )) as { rows: Row[] };
      return result.rows.map(toJob);
    });
  }

  countJobs(): Promise<JobCount[]> {
    return mappingErrors(async () => {
      const result = (await this.db.raw(
        `SELECT kind, ${SHOWN_STATE} AS shown_state, count(*) AS n FROM ${TABLES.jobs} GROUP BY 1, 2 ORDER BY 1, 2`,
      )) as { rows: Row[] };
      return result.rows.map((row) => ({ kind: String(row.kind), state: String(row.shown_state) as JobState, count: toNumber(row.n) }));
    });
  }

  retryJob(id: number): Promise<JobRecord | null> {
    return mappingErrors(async () => {
      const result = (await this.db.raw(
        `UPDATE ${TABLES.jobs} SET state = 'pending', run_at = clock_timestamp(), attempts = 0, updated = clock_timestamp()
         WHERE id = ? AND state = 'failed' ${RETURNING}`,
        [id],
      )) as { rows: Row[] };
      return result.rows[0] ? toJob(result.rows[0]) : null;
    });
  }

  /** `UPDATE … SET <set>` of the job while `lease` holds it; whether it did. */
  private settle(lease: JobLease, set: string, bindings: Knex.Value[] = []): Promise<boolean> {
    return mappingErrors(async () => {
      const result = (await this.db.raw(`UPDATE ${TABLES.jobs} SET ${set}, updated = clock_timestamp() WHERE ${HELD} RETURNING id`, [
        ...bindings,
        lease.id,
        lease.owner,
      ])) as { rows: Row[] };
      return result.rows.length > 0;
    });
  }
}
