/**
 * Inventory at scale (docs/DESIGN.md "Inventory"):
 * - `certificate_json`: the API text of the `certificate` member (lib/ca/serialize.ts), produced once
 *   when the row is written, so that a list row is a copy of text rather than a re-serialisation of
 *   the parsed certificate. Writers of this library fill it; for rows written without it (rows of
 *   earlier versions, writers that do not know the column) a trigger copies the `certificate`
 *   column's text, which is the same JSON (`json` keeps text and key order as written). Revocation
 *   does not touch it: the revocation fields of a record are read from their own columns.
 * - `san_search`: the subjectAltName values, lower-case, one per line, for the `san` list filter;
 *   computed by the database from `certificate`, whoever writes the row.
 * - Indexes for the search filters: a serial prefix index (`varchar_pattern_ops`, so that
 *   `LIKE 'AB%'` uses it whatever the collation), and trigram indexes for the substring filters
 *   (`subject` on lower(cn), `san`) where the `pg_trgm` extension can be had. Without it those two
 *   filters scan the CA's rows (docs/DESIGN.md gives the figures).
 */
import type { Knex } from 'knex';

const CERTS = 'ca_api_certificates';

/** The row trigger's function: the API text if the writer gave none, and the subjectAltName search text. */
const INVENTORY_FUNCTION = `
  CREATE OR REPLACE FUNCTION ca_api_certificates_inventory() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.certificate_json IS NULL THEN NEW.certificate_json := NEW.certificate::text; END IF;
    NEW.san_search := ca_api_san_search(NEW.certificate);
    RETURN NEW;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable(CERTS, (t) => {
    t.text('certificate_json').nullable();
    t.text('san_search').notNullable().defaultTo('');
  });
  // Immutable (depends on its argument only), so usable by the trigger and the backfill alike.
  await knex.raw(`
    CREATE FUNCTION ca_api_san_search(c json) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT coalesce(string_agg(lower(coalesce(g->>'value', '')), E'\\n'), '')
      FROM json_array_elements(CASE WHEN json_typeof(c->'extensions') = 'array' THEN c->'extensions' ELSE '[]'::json END) e,
           json_array_elements(CASE WHEN json_typeof(e->'value') = 'array' THEN e->'value' ELSE '[]'::json END) g
      WHERE e->>'type' = 'subject_alternative_name'
    $$`);
  await knex.raw(INVENTORY_FUNCTION);
  await knex.raw(
    `CREATE TRIGGER ca_api_certificates_inventory BEFORE INSERT ON ${CERTS} FOR EACH ROW EXECUTE FUNCTION ca_api_certificates_inventory()`,
  );
  // Existing rows, once. The 0002 revocation trigger sees no newly revoked row here and does nothing.
  await knex.raw(`UPDATE ${CERTS} SET certificate_json = certificate::text, san_search = ca_api_san_search(certificate)`);
  await knex.raw(`ALTER TABLE ${CERTS} ALTER COLUMN certificate_json SET NOT NULL`);

  await knex.raw(`CREATE INDEX ca_api_certificates_serial_prefix_idx ON ${CERTS} (ca_id, serial varchar_pattern_ops)`);
  const trgm = await trigramSchema(knex);
  if (trgm) {
    const ops = `${quoteIdent(trgm)}.gin_trgm_ops`;
    await knex.raw(`CREATE INDEX ca_api_certificates_cn_trgm_idx ON ${CERTS} USING gin (lower(cn) ${ops})`);
    await knex.raw(`CREATE INDEX ca_api_certificates_san_trgm_idx ON ${CERTS} USING gin (san_search ${ops})`);
  }
}

/**
 * The schema holding `pg_trgm`, installing it when the server has it and we may (it is a trusted
 * extension: a database owner may); null when it cannot be had (PGlite without the contrib module,
 * a server without contrib, no privilege). A failed attempt is rolled back to a savepoint so that the
 * migration goes on without it.
 */
async function trigramSchema(knex: Knex): Promise<string | null> {
  const installed = async (): Promise<string | null> => {
    const { rows } = (await knex.raw(
      `SELECT n.nspname AS schema FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'pg_trgm'`,
    )) as { rows: { schema: string }[] };
    return rows[0]?.schema ?? null;
  };
  const found = await installed();
  if (found) return found;
  // Not asked of pg_available_extensions first: PGlite unpacks an extension it was given only when
  // it is created, so it is not listed there until then. Trying is the one test that holds everywhere.
  // In `public` when there is one, so that the extension outlives a per-tenant or per-test schema.
  const { rows: publicSchema } = (await knex.raw(`SELECT 1 FROM pg_namespace WHERE nspname = 'public'`)) as { rows: unknown[] };
  await knex.raw('SAVEPOINT ca_api_trgm');
  try {
    await knex.raw(`CREATE EXTENSION IF NOT EXISTS pg_trgm${publicSchema.length ? ' WITH SCHEMA public' : ''}`);
    await knex.raw('RELEASE SAVEPOINT ca_api_trgm');
  } catch {
    // No privilege, or a concurrent migration installed it first: look again below.
    await knex.raw('ROLLBACK TO SAVEPOINT ca_api_trgm');
  }
  return installed();
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS ca_api_certificates_san_trgm_idx');
  await knex.raw('DROP INDEX IF EXISTS ca_api_certificates_cn_trgm_idx');
  await knex.raw('DROP INDEX IF EXISTS ca_api_certificates_serial_prefix_idx');
  await knex.raw(`DROP TRIGGER IF EXISTS ca_api_certificates_inventory ON ${CERTS}`);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_certificates_inventory()');
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_san_search(json)');
  await knex.schema.alterTable(CERTS, (t) => {
    t.dropColumn('san_search');
    t.dropColumn('certificate_json');
  });
}
