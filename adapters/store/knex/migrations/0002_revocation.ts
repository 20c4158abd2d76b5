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
  await knex.raw(`
    CREATE FUNCTION ca_api_certificates_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ca_api_certificate_authorities SET revocation_version = revocation_version + 1
      WHERE id IN (SELECT n.ca_id FROM ca_api_new_certificates n JOIN ca_api_old_certificates o ON o.id = n.id WHERE n.revoked AND NOT o.revoked);
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ca_api_certificates_revoked AFTER UPDATE ON ca_api_certificates
    REFERENCING NEW TABLE AS ca_api_new_certificates OLD TABLE AS ca_api_old_certificates
    FOR EACH STATEMENT EXECUTE FUNCTION ca_api_certificates_revoked()`);
  await knex.raw(`
    CREATE FUNCTION ca_api_child_cas_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- The version updates of these very triggers are CA updates too: do not follow them.
      IF pg_trigger_depth() > 1 THEN
        RETURN NULL;
      END IF;
      UPDATE ca_api_certificate_authorities SET revocation_version = revocation_version + 1
      WHERE id IN (SELECT n.parent_id FROM ca_api_new_cas n JOIN ca_api_old_cas o ON o.id = n.id WHERE n.revoked AND NOT o.revoked);
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ca_api_child_cas_revoked AFTER UPDATE ON ca_api_certificate_authorities
    REFERENCING NEW TABLE AS ca_api_new_cas OLD TABLE AS ca_api_old_cas
    FOR EACH STATEMENT EXECUTE FUNCTION ca_api_child_cas_revoked()`);
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
