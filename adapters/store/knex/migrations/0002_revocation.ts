/**
 * Revocation serving (docs/DESIGN.md "Revocation serving"):
 * - `revocation_version` on each CA, raised by a trigger in the same transaction as every revocation
 *   of one of its certificates or child CAs, whatever path revokes (API, ca-admin, SQL). CRL caches
 *   of every instance compare against it, so a cached CRL is never served after a revocation for
 *   longer than the cache's check interval.
 * - `ca_api_crl_numbers`: the last CRL Number per CA and scope (RFC 5280 §5.2.3: monotonically
 *   increasing), shared by all instances, never reused.
 * - A partial index over revoked certificates, so that building a CRL reads only revoked rows however
 *   many certificates a CA has.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ca_api_certificate_authorities', (t) => {
    t.bigInteger('revocation_version').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('ca_api_crl_numbers', (t) => {
    t.integer('ca_id').notNullable().references('id').inTable('ca_api_certificate_authorities').onDelete('CASCADE');
    t.string('scope', 8).notNullable();
    t.bigInteger('last_number').notNullable();
    t.primary(['ca_id', 'scope']);
  });
  await knex.raw('CREATE INDEX ca_api_certificates_revoked_idx ON ca_api_certificates (ca_id, id) WHERE revoked');
  await knex.raw('CREATE INDEX ca_api_certificate_authorities_revoked_idx ON ca_api_certificate_authorities (parent_id) WHERE revoked');
  // Statement-level triggers over the transition tables: one UPDATE that revokes many rows raises
  // each CA's version once, instead of rewriting the CA row once per certificate.
  await createRevocationTrigger(knex, { name: 'ca_api_certificates_revoked', table: 'ca_api_certificates', caColumn: 'ca_id' });
  // A revoked child CA counts for its parent. The version updates of these very triggers are CA
  // updates too: the depth check keeps the trigger from following them.
  await createRevocationTrigger(knex, {
    name: 'ca_api_child_cas_revoked',
    table: 'ca_api_certificate_authorities',
    caColumn: 'parent_id',
    topLevelOnly: true,
  });
}

/** A trigger that raises `revocation_version` of the CA in `caColumn` of every row revoked by a statement. */
async function createRevocationTrigger(
  knex: Knex,
  t: { name: string; table: string; caColumn: string; topLevelOnly?: boolean },
): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${t.topLevelOnly ? 'IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;' : ''}
      UPDATE ca_api_certificate_authorities SET revocation_version = revocation_version + 1
      WHERE id IN (SELECT n.${t.caColumn} FROM ${t.name}_new n JOIN ${t.name}_old o ON o.id = n.id WHERE n.revoked AND NOT o.revoked);
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ${t.name} AFTER UPDATE ON ${t.table}
    REFERENCING NEW TABLE AS ${t.name}_new OLD TABLE AS ${t.name}_old
    FOR EACH STATEMENT EXECUTE FUNCTION ${t.name}()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS ca_api_child_cas_revoked ON ca_api_certificate_authorities');
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_child_cas_revoked()');
  await knex.raw('DROP TRIGGER IF EXISTS ca_api_certificates_revoked ON ca_api_certificates');
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_certificates_revoked()');
  await knex.raw('DROP INDEX IF EXISTS ca_api_certificate_authorities_revoked_idx');
  await knex.raw('DROP INDEX IF EXISTS ca_api_certificates_revoked_idx');
  await knex.schema.dropTableIfExists('ca_api_crl_numbers');
  await knex.schema.alterTable('ca_api_certificate_authorities', (t) => {
    t.dropColumn('revocation_version');
  });
}
