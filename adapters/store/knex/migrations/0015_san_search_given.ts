/**
 * `san_search` given by the writer (adapters/store/knex/san-search.ts) is kept; the trigger of
 * migration 0003 computes it only when none is given. The column loses its default (`''`), so a
 * writer that does not know the column gives NULL, not the empty text of "no subjectAltName", and
 * the trigger fills it in as before.
 */
import type { Knex } from 'knex';

const CERTS = 'ca_api_certificates';

const inventoryTrigger = (sanSearch: string) => `
  CREATE OR REPLACE FUNCTION ca_api_certificates_inventory() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.certificate_json IS NULL THEN NEW.certificate_json := NEW.certificate::text; END IF;
    ${sanSearch}
    RETURN NEW;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE ${CERTS} ALTER COLUMN san_search DROP DEFAULT`);
  await knex.raw(inventoryTrigger('IF NEW.san_search IS NULL THEN NEW.san_search := ca_api_san_search(NEW.certificate); END IF;'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(inventoryTrigger('NEW.san_search := ca_api_san_search(NEW.certificate);'));
  await knex.raw(`ALTER TABLE ${CERTS} ALTER COLUMN san_search SET DEFAULT ''`);
}
