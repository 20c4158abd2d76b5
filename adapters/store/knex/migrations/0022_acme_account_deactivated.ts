/**
 * `acme.account.deactivated` (docs/operations/audit-and-events.md "Domain events"): written by the database when an ACME account
 * becomes `deactivated`, in the same transaction — by the account itself over ACME (RFC 8555
 * §7.3.6; its actor is then the account) or by an operator in the admin interface (its actor is the
 * one the write names, `ca_api.actor`). Deferred to the commit, as every event trigger (ids in commit order). `data.account` is the slug, `data.contact` the contacts.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION ca_api_event_acme_account_deactivated() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      setting text := nullif(current_setting('ca_api.actor', true), '');
    BEGIN
      PERFORM ca_api_event('acme.account.deactivated',
        coalesce(setting::json, json_build_object('type', 'acme_account', 'id', NEW.id, 'protocol', 'acme')),
        NEW.ca_id, NULL, json_build_object('account', NEW.slug, 'contact', NEW.contact));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_account_deactivated AFTER UPDATE ON ca_api_acme_accounts
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.status = 'deactivated' AND OLD.status IS DISTINCT FROM 'deactivated')
    EXECUTE FUNCTION ca_api_event_acme_account_deactivated()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS ca_api_event_acme_account_deactivated ON ca_api_acme_accounts');
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_event_acme_account_deactivated()');
}
