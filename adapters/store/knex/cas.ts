/** Queries on `ca_api_certificate_authorities`. */
import type { Knex } from 'knex';
import { StoreNotFoundError, type CaFilter, type CaPatch, type CaRecord, type NewCa } from '../../../lib/ports';
import { mappingErrors } from './errors';
import { caFromRow, caPatchToRow, newCaToRow, type Row } from './rows';
import { TABLES } from './tables';
import { whereWithinValidity } from './validity';

const TABLE = TABLES.cas;

export function insertCa(db: Knex, ca: NewCa): Promise<CaRecord> {
  return mappingErrors(async () => {
    const now = new Date();
    const [row] = await db(TABLE)
      .insert({ ...newCaToRow(ca), created: now, updated: now })
      .returning('*');
    return caFromRow(row as Row);
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
export function updateCa(db: Knex, id: number, patch: CaPatch): Promise<CaRecord> {
  return mappingErrors(async () => {
    const [row] = await db(TABLE)
      .where({ id })
      .update({ ...caPatchToRow(patch), updated: new Date() })
      .returning('*');
    if (!row) throw new StoreNotFoundError('ca', id);
    return caFromRow(row as Row);
  });
}

export async function revokeCa(db: Knex, id: number, reason: string, compromised: Date | null, when: Date): Promise<CaRecord> {
  const [row] = await db(TABLE)
    .where({ id })
    .update({ revoked: true, revoked_date: when, revoked_reason: reason, compromised, updated: new Date() })
    .returning('*');
  if (!row) throw new StoreNotFoundError('ca', id);
  return caFromRow(row as Row);
}
