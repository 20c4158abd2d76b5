/**
 * `san_search` given by the writer (adapters/store/knex/san-search.ts) is kept; the trigger of
 * migration 0003 computes it only when none is given. The column loses its default (`''`), so a
 * writer that does not know the column gives NULL, not the empty text of "no subjectAltName", and
 * the trigger fills it in as before.
 *
 * Frozen text: the SQL is written out here in full, not derived from another migration's, so that a
 * change to an older migration never changes what this one does (test/architecture/frozen-migrations.test.ts).
 */
import type { Knex } from 'knex';

/** Migration 0003's trigger function, computing `san_search` only when the writer gave none. */
const INVENTORY_IF_MISSING = `
  CREATE OR REPLACE FUNCTION ca_api_certificates_inventory() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.certificate_json IS NULL THEN NEW.certificate_json := NEW.certificate::text; END IF;
    IF NEW.san_search IS NULL THEN NEW.san_search := ca_api_san_search(NEW.certificate); END IF;
    RETURN NEW;
  END $$`;

/** The trigger function as migration 0003 made it, for `down`. */
const INVENTORY_0003 = `
  CREATE OR REPLACE FUNCTION ca_api_certificates_inventory() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.certificate_json IS NULL THEN NEW.certificate_json := NEW.certificate::text; END IF;
    NEW.san_search := ca_api_san_search(NEW.certificate);
    RETURN NEW;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ca_api_certificates ALTER COLUMN san_search DROP DEFAULT');
  await knex.raw(INVENTORY_IF_MISSING);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(INVENTORY_0003);
  await knex.raw(`ALTER TABLE ca_api_certificates ALTER COLUMN san_search SET DEFAULT ''`);
}
