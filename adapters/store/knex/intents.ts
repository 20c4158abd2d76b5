/**
 * Issuance intents on `ca_api_issuance_intents` (migration 0029; lib/ports/intents.ts). Intents of
 * concurrent requests are written with one INSERT (store-hubs.ts, group-commit.ts): the row before
 * the signature costs a statement per group, not per certificate.
 */
import type { Knex } from 'knex';
import type { IntentFilter, IntentTaken, IssuanceIntentRecord, NewIssuanceIntent } from '../../../lib/ports';
import { TABLES } from './tables';
import { fromNullableJson, toBuffer, toDate, toNullableDate, toNullableNumber, toNullableJson, toNumber } from './values';
import type { Row } from './rows';

const TABLE = TABLES.issuanceIntents;

function rowOf(intent: NewIssuanceIntent): Row {
  return {
    ca_id: intent.caId,
    serial: intent.serial,
    door: intent.door,
    requester: toNullableJson(intent.requester),
    answers: intent.answers,
    tbs: intent.tbs,
  };
}

function recordOf(row: Row): IssuanceIntentRecord {
  return {
    id: toNumber(row.id),
    caId: toNumber(row.ca_id),
    serial: String(row.serial),
    door: String(row.door),
    requester: fromNullableJson(row.requester),
    answers: row.answers === null || row.answers === undefined ? null : String(row.answers),
    tbs: row.tbs === null || row.tbs === undefined ? null : toBuffer(row.tbs),
    created: toDate(row.created),
    certificateId: toNullableNumber(row.certificate_id),
    failed: toNullableDate(row.failed),
    failure: row.failure === null || row.failure === undefined ? null : String(row.failure),
  };
}

/** The intents as a VALUES list of `(ca_id, serial, door, requester, answers, tbs)` rows, and its bindings. */
export function intentValues(intents: readonly NewIssuanceIntent[]): { sql: string; bindings: Knex.RawBinding[] } {
  const rows = intents.map(rowOf);
  return {
    sql: `values ${rows.map(() => '(?::integer, ?::text, ?::text, ?::json, ?::text, ?::bytea)').join(', ')}`,
    bindings: rows.flatMap((r) => [r.ca_id, r.serial, r.door, r.requester, r.answers, r.tbs]) as Knex.RawBinding[],
  };
}

/** The columns an intent's INSERT returns, and the record of `intent` written as `row` says. */
export const INTENT_RETURNING = 'id, ca_id, serial, created';
export const intentKey = (caId: unknown, serial: unknown): string => `${toNumber(caId)}:${String(serial)}`;
export function writtenIntent(intent: NewIssuanceIntent, row: Row): IssuanceIntentRecord {
  return { ...intent, id: toNumber(row.id), created: toDate(row.created), certificateId: null, failed: null, failure: null };
}

/**
 * Several intents in one statement; results in input order. One whose `answers` an intent not failed
 * holds already is not written (ON CONFLICT on the partial unique index) and answers `{ taken }`.
 */
export async function recordIntents(db: Knex, intents: NewIssuanceIntent[]): Promise<(IssuanceIntentRecord | IntentTaken)[]> {
  if (intents.length === 0) return [];
  const values = intentValues(intents);
  const result = (await db.raw(
    `INSERT INTO ?? (ca_id, serial, door, requester, answers, tbs) ${values.sql}
     ON CONFLICT (answers) WHERE answers IS NOT NULL AND failed IS NULL DO NOTHING
     RETURNING ${INTENT_RETURNING}`,
    [TABLE, ...values.bindings],
  )) as { rows: Row[] };
  const inserted = result.rows;
  const byKey = new Map(inserted.map((r) => [intentKey(r.ca_id, r.serial), r]));
  const takenAnswers = intents.filter((i) => !byKey.has(intentKey(i.caId, i.serial))).map((i) => i.answers as string);
  const holders = takenAnswers.length
    ? new Map(
        ((await db(TABLE).whereIn('answers', takenAnswers).whereNull('failed').select('*')) as Row[]).map((r) => [String(r.answers), r]),
      )
    : new Map<string, Row>();
  return intents.map((intent) => {
    const row = byKey.get(intentKey(intent.caId, intent.serial));
    if (row) return writtenIntent(intent, row);
    const holder = intent.answers === null ? undefined : holders.get(intent.answers);
    // Its holder failed between the two statements: the caller may simply try again.
    if (!holder) throw new Error(`recordIntents: intent for ${String(intent.answers)} neither written nor held`);
    return { taken: recordOf(holder) };
  });
}

export async function recordIntent(db: Knex, intent: NewIssuanceIntent): Promise<IssuanceIntentRecord | IntentTaken> {
  return (await recordIntents(db, [intent]))[0];
}

export async function failIntent(db: Knex, id: number, failure: string): Promise<void> {
  await db(TABLE)
    .where({ id })
    .whereNull('certificate_id')
    .whereNull('failed')
    .update({ failed: db.raw('clock_timestamp()'), failure });
}

export function settleInterruptedIntents(db: Knex, before: Date, failure: string): Promise<number> {
  return db(TABLE)
    .whereNull('certificate_id')
    .whereNull('failed')
    .where('created', '<', before)
    .update({ failed: db.raw('clock_timestamp()'), failure });
}

/** Newest first by id: a page is `beforeId` the oldest id of the one before (keyset, the primary key's order). */
export async function listIntents(db: Knex, filter: IntentFilter = {}): Promise<IssuanceIntentRecord[]> {
  const query = db(TABLE).select('*').orderBy('id', 'desc');
  if (filter.caId !== undefined) query.where('ca_id', filter.caId);
  if (filter.door !== undefined) query.where('door', filter.door);
  if (filter.beforeId !== undefined) query.where('id', '<', filter.beforeId);
  if (filter.since !== undefined) query.where('created', '>=', filter.since);
  // An intent is issued or failed, never both: the trigger refuses a failed intent's certificate (migration 0030).
  const state = filter.state ?? (filter.pendingOnly ? 'pending' : undefined);
  if (state === 'pending') query.whereNull('certificate_id').whereNull('failed');
  if (state === 'issued') query.whereNotNull('certificate_id');
  if (state === 'failed') query.whereNull('certificate_id').whereNotNull('failed');
  if (filter.limit !== undefined) query.limit(filter.limit);
  return ((await query) as Row[]).map(recordOf);
}
