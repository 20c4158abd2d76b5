/**
 * `san_search` given by the writer (adapters/store/knex/san-search.ts) is kept; the trigger of
 * migration 0003 computes it only when none is given. The column loses its default (`''`), so a
 * writer that does not know the column gives NULL, not the empty text of "no subjectAltName", and
 * the trigger fills it in as before.
 */
import type { Knex } from 'knex';
import { INVENTORY_FUNCTION } from './0003_inventory';

const CERTS = 'ca_api_certificates';
const ALWAYS = 'NEW.san_search := ca_api_san_search(NEW.certificate);';
const IF_MISSING = 'IF NEW.san_search IS NULL THEN NEW.san_search := ca_api_san_search(NEW.certificate); END IF;';

/** Migration 0003's trigger function, computing `san_search` only when the writer gave none. */
function inventoryIfMissing(): string {
  if (!INVENTORY_FUNCTION.includes(ALWAYS)) throw new Error('migration 0015: the inventory trigger of 0003 does not compute san_search');
  return INVENTORY_FUNCTION.replace(ALWAYS, IF_MISSING);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE ${CERTS} ALTER COLUMN san_search DROP DEFAULT`);
  await knex.raw(inventoryIfMissing());
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(INVENTORY_FUNCTION);
  await knex.raw(`ALTER TABLE ${CERTS} ALTER COLUMN san_search SET DEFAULT ''`);
}
