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
  await knex.raw(`
    CREATE FUNCTION ca_api_certificate_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ca_api_certificate_authorities SET revocation_version = revocation_version + 1 WHERE id = NEW.ca_id;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ca_api_certificate_revoked AFTER UPDATE OF revoked ON ca_api_certificates
    FOR EACH ROW WHEN (NEW.revoked AND NOT OLD.revoked) EXECUTE FUNCTION ca_api_certificate_revoked()`);
  await knex.raw(`
    CREATE FUNCTION ca_api_child_ca_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ca_api_certificate_authorities SET revocation_version = revocation_version + 1 WHERE id = NEW.parent_id;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ca_api_child_ca_revoked AFTER UPDATE OF revoked ON ca_api_certificate_authorities
    FOR EACH ROW WHEN (NEW.revoked AND NOT OLD.revoked AND NEW.parent_id IS NOT NULL) EXECUTE FUNCTION ca_api_child_ca_revoked()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS ca_api_child_ca_revoked ON ca_api_certificate_authorities');
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_child_ca_revoked()');
  await knex.raw('DROP TRIGGER IF EXISTS ca_api_certificate_revoked ON ca_api_certificates');
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_certificate_revoked()');
  await knex.raw('DROP INDEX IF EXISTS ca_api_certificate_authorities_revoked_idx');
  await knex.raw('DROP INDEX IF EXISTS ca_api_certificates_revoked_idx');
  await knex.schema.dropTableIfExists('ca_api_crl_numbers');
  await knex.schema.alterTable('ca_api_certificate_authorities', (t) => {
    t.dropColumn('revocation_version');
  });
}
