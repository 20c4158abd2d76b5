/**
 * Queries on `ca_api_certificate_authorities`. Each write records its events (transaction-events.ts):
 * `ca.created`; `ca.revoked` when the CA becomes revoked, else `ca.updated` when `updated` moves (a
 * write that leaves it alone — a revocation-version bump, a key re-wrapped by `ca-admin rotate_kek` —
 * is no change of the CA); `ca.issuance_policy.updated` when its issuance policy changes.
 */
import type { Knex } from 'knex';
import { StoreNotFoundError, type CaFilter, type CaPatch, type CaRecord, type NewCa } from '../../../lib/ports';
import { mappingErrors } from './errors';
import { updateComparing } from './row-changes';
import { caFromRow, caPatchToRow, newCaToRow, type Row } from './rows';
import { TABLES } from './tables';
import type { RecordEvents } from './transaction-events';
import { whereWithinValidity } from './validity';
import { toNumber } from './values';

const TABLE = TABLES.cas;

export function insertCa(db: Knex, ca: NewCa, record: RecordEvents): Promise<CaRecord> {
  return mappingErrors(async () => {
    const now = new Date();
    const [row] = await db(TABLE)
      .insert({ ...newCaToRow(ca), created: now, updated: now })
      .returning('*');
    const created = caFromRow(row as Row);
    const parent =
      created.parentId == null ? undefined : ((await db(TABLE).where({ id: created.parentId }).first('serial')) as Row | undefined);
    record({
      type: 'ca.created',
      caId: created.id,
      data: { name: created.name, parent: parent?.serial ?? null, key_backend: created.keyBackendAlias },
    });
    return created;
  });
}

async function findOne(db: Knex, where: Record<string, unknown>): Promise<CaRecord | null> {
  const row = (await db(TABLE).where(where).first()) as Row | undefined;
  return row ? caFromRow(row) : null;
}

export const getCa = (db: Knex, id: number) => findOne(db, { id });
export const findCaBySerial = (db: Knex, serial: string) => findOne(db, { serial });
export const findCaByName = (db: Knex, name: string) => findOne(db, { name });

export async function listCas(db: Knex, filter: CaFilter = {}): Promise<CaRecord[]> {
  const query = db(TABLE).select('*').orderBy('id', 'asc');
  if (filter.enabled !== undefined) query.where('enabled', filter.enabled);
  if (filter.apiEnabled !== undefined) query.where('api_enabled', filter.apiEnabled);
  if (filter.validAt !== undefined) whereWithinValidity(query, filter.validAt);
  return ((await query) as Row[]).map(caFromRow);
}

/** Apply a patch; an empty patch still bumps `updated`, as `PUT {}` does upstream. */
export function updateCa(db: Knex, id: number, patch: CaPatch, record: RecordEvents): Promise<CaRecord> {
  return mappingErrors(() => changeCa(db, id, { ...caPatchToRow(patch), updated: new Date() }, record));
}

export function revokeCa(
  db: Knex,
  id: number,
  reason: string,
  compromised: Date | null,
  when: Date,
  record: RecordEvents,
): Promise<CaRecord> {
  return changeCa(db, id, { revoked: true, revoked_date: when, revoked_reason: reason, compromised, updated: new Date() }, record);
}

/**
 * What a change of a CA row tells, compared by the database: whether the CA became revoked (and what
 * `ca.revoked` says of it, its dates as the database writes them in JSON), whether `updated` moved
 * and which fields changed (never their values), whether the issuance policy changed and what it was.
 */
const CA_CHANGE = {
  revoked: 'n.revoked AND NOT o.revoked',
  revocation: `json_build_object('name', n.name, 'reason', n.revoked_reason, 'revoked_date', n.revoked_date, 'compromised', n.compromised)`,
  updated: 'n.updated IS DISTINCT FROM o.updated',
  fields: `(SELECT coalesce(json_agg(c.key ORDER BY c.key), '[]'::json)
             FROM jsonb_each(to_jsonb(n)) c JOIN jsonb_each(to_jsonb(o)) p USING (key)
            WHERE c.value IS DISTINCT FROM p.value AND c.key NOT IN ('updated', 'revocation_version'))`,
  policy: 'n.issuance_policy IS DISTINCT FROM o.issuance_policy',
  old_policy: 'o.issuance_policy',
};

async function changeCa(db: Knex, id: number, columns: Row, record: RecordEvents): Promise<CaRecord> {
  const changed = await updateComparing(db, TABLE, { id }, columns, CA_CHANGE);
  if (!changed) throw new StoreNotFoundError('ca', id);
  const ca = caFromRow(changed.row);
  const { change } = changed;
  const caId = toNumber(changed.row.id);
  if (change.revoked) record({ type: 'ca.revoked', caId, data: change.revocation as Record<string, unknown> });
  else if (change.updated) record({ type: 'ca.updated', caId, data: { name: ca.name, changed: change.fields } });
  if (change.policy) {
    record({ type: 'ca.issuance_policy.updated', caId, data: { name: ca.name, old: change.old_policy, new: ca.issuancePolicy } });
  }
  return ca;
}
