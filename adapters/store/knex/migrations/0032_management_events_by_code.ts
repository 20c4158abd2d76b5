/**
 * The management events are written by the code that makes the change (adapters/store/knex/
 * transaction-events.ts; docs/DESIGN.md "Domain events"): CAs made, changed, revoked and their
 * issuance policy; API users made, changed and deleted; webhook endpoints added, removed and given a
 * new secret; ACME accounts made and deactivated, ACME policies, external account binding keys;
 * enrolment requests decided and enrolment endpoints made, changed and deleted. Each in the
 * transaction of its change, appended as its last statement, naming the actor the code hands it
 * rather than one read from a session setting. The triggers that derived these events from row
 * changes go, with their functions: a change made with SQL from outside the library makes no event.
 *
 * Unchanged: `ca_api_event()` and the actor functions (the certificate, order, CRL and expiry
 * triggers still call them), the audit log's hash chain and append-only guards (migration 0011).
 *
 * `down` puts the triggers back as they were (their text as migrations 0004, 0011, 0012, 0013, 0022
 * and 0024 to 0028 left it).
 */
import type { Knex } from 'knex';

/** Trigger and table, in the order `up` drops them. */
const TRIGGERS: readonly (readonly [string, string])[] = [
  ['ca_api_event_ca_created', 'ca_api_certificate_authorities'],
  ['ca_api_event_ca_changed', 'ca_api_certificate_authorities'],
  ['ca_api_event_ca_issuance_policy_updated', 'ca_api_certificate_authorities'],
  ['ca_api_event_user_created', 'ca_api_users'],
  ['ca_api_event_user_changed', 'ca_api_users'],
  ['ca_api_event_user_deleted', 'ca_api_users'],
  ['ca_api_event_webhook_created', 'ca_api_webhook_endpoints'],
  ['ca_api_event_webhook_removed', 'ca_api_webhook_endpoints'],
  ['ca_api_event_webhook_rotated', 'ca_api_webhook_endpoints'],
  ['ca_api_event_acme_account_created', 'ca_api_acme_accounts'],
  ['ca_api_event_acme_account_deactivated', 'ca_api_acme_accounts'],
  ['ca_api_event_acme_policy_inserted', 'ca_api_acme_policies'],
  ['ca_api_event_acme_policy_updated', 'ca_api_acme_policies'],
  ['ca_api_event_acme_eab_key_created', 'ca_api_acme_eab_keys'],
  ['ca_api_event_enrolment_decided', 'ca_api_enrolment_requests'],
  ['ca_api_event_enrolment_endpoint', 'ca_api_enrolment_endpoints'],
];

/** The trigger functions, dropped once their triggers are gone. */
const FUNCTIONS: readonly string[] = [
  'ca_api_event_ca_created',
  'ca_api_event_ca_changed',
  'ca_api_event_ca_issuance_policy_updated',
  'ca_api_event_user_created',
  'ca_api_event_user_changed',
  'ca_api_event_user_deleted',
  'ca_api_event_webhook_created',
  'ca_api_event_webhook_removed',
  'ca_api_event_webhook_rotated',
  'ca_api_event_acme_account_created',
  'ca_api_event_acme_account_deactivated',
  'ca_api_event_acme_policy_updated',
  'ca_api_event_acme_eab_key_created',
  'ca_api_event_enrolment_decided',
  'ca_api_event_enrolment_endpoint',
];

export async function up(knex: Knex): Promise<void> {
  for (const [trigger, table] of TRIGGERS) await knex.raw(`DROP TRIGGER IF EXISTS ${trigger} ON ${table}`);
  for (const name of FUNCTIONS) await knex.raw(`DROP FUNCTION IF EXISTS ${name}()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION ca_api_event_ca_created() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('ca.created', ca_api_event_actor(NULL), NEW.id, NULL,
        json_build_object('name', NEW.name, 'parent',
          (SELECT p.serial FROM ca_api_certificate_authorities p WHERE p.id = NEW.parent_id), 'key_backend', NEW.key_backend_alias));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_ca_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.revoked AND NOT OLD.revoked THEN
        PERFORM ca_api_event('ca.revoked', ca_api_event_actor(NULL), NEW.id, NULL,
          json_build_object('name', NEW.name, 'reason', NEW.revoked_reason, 'revoked_date', NEW.revoked_date,
            'compromised', NEW.compromised));
      ELSE
        PERFORM ca_api_event('ca.updated', ca_api_event_actor(NULL), NEW.id, NULL,
          json_build_object('name', NEW.name, 'changed', (
            SELECT coalesce(json_agg(n.key ORDER BY n.key), '[]'::json)
            FROM jsonb_each(to_jsonb(NEW)) n JOIN jsonb_each(to_jsonb(OLD)) o USING (key)
            WHERE n.value IS DISTINCT FROM o.value AND n.key NOT IN ('updated', 'revocation_version'))));
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_ca_issuance_policy_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('ca.issuance_policy.updated', ca_api_event_actor(NULL), NEW.id, NULL,
        json_build_object('name', NEW.name, 'old', OLD.issuance_policy, 'new', NEW.issuance_policy));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_user_created() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('user.created', ca_api_event_actor(NULL), NULL, NULL, json_build_object('username', NEW.username));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_user_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.password_hash IS DISTINCT FROM OLD.password_hash THEN
        PERFORM ca_api_event('user.password_changed', ca_api_event_actor(NULL), NULL, NULL,
          json_build_object('username', NEW.username, 'user_id', NEW.id));
      ELSE
        PERFORM ca_api_event('user.permissions_changed', ca_api_event_actor(NULL), NULL, NULL,
          json_build_object('username', NEW.username, 'user_id', NEW.id, 'permissions', (
            SELECT coalesce(json_agg(json_build_object('permission', p.permission, 'ca', c.serial)
              ORDER BY p.permission, c.serial NULLS FIRST), '[]'::json)
            FROM ca_api_user_permissions p LEFT JOIN ca_api_certificate_authorities c ON c.id = p.ca_id
            WHERE p.user_id = NEW.id)));
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_user_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('user.deleted', ca_api_event_actor(NULL), NULL, NULL,
        json_build_object('username', OLD.username, 'user_id', OLD.id));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_webhook_created() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('webhook.created', ca_api_event_actor(NULL), NULL, NULL, json_build_object('webhook', NEW.id, 'url', NEW.url, 'event_types', NEW.event_types));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_webhook_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('webhook.removed', ca_api_event_actor(NULL), NULL, NULL, json_build_object('webhook', OLD.id, 'url', OLD.url, 'event_types', OLD.event_types));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_webhook_rotated() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('ca_api.kek_rotation', true) = 'on' THEN RETURN NULL; END IF;
    PERFORM ca_api_event('webhook.secret_rotated', ca_api_event_actor(NULL), NULL, NULL,
      json_build_object('webhook', NEW.id, 'url', NEW.url, 'event_types', NEW.event_types));
    RETURN NULL;
  END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_acme_account_created() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('acme.account.created', json_build_object('type', 'acme_account', 'id', NEW.id, 'protocol', 'acme'),
        NEW.ca_id, NULL, json_build_object('account', NEW.slug, 'eab_kid', NEW.eab_kid));
      RETURN NULL;
    END $$`);
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
    CREATE FUNCTION ca_api_event_acme_policy_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('acme.policy.updated', ca_api_event_actor(NULL), NEW.ca_id, NULL,
        json_build_object('eab_required', NEW.eab_required, 'allow', NEW.allow, 'deny', NEW.deny));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_acme_eab_key_created() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('acme.eab_key.created', ca_api_event_actor(NULL), NEW.ca_id, NULL, json_build_object('kid', NEW.kid));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_enrolment_decided() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('enrolment.' || NEW.status, coalesce(NEW.decided_by, ca_api_event_actor(NULL)), NEW.ca_id,
        NEW.certificate_serial,
        json_build_object('request', NEW.id, 'protocol', NEW.protocol, 'label', NEW.label, 'reason', NEW.reason));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_enrolment_endpoint() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed text[] := '{}';
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM ca_api_event('enrolment.endpoint.deleted', ca_api_event_actor(NULL), OLD.ca_id, NULL,
          json_build_object('protocol', OLD.protocol, 'label', OLD.label));
      ELSIF TG_OP = 'INSERT' THEN
        PERFORM ca_api_event('enrolment.endpoint.created', ca_api_event_actor(NULL), NEW.ca_id, NULL,
          json_build_object('protocol', NEW.protocol, 'label', NEW.label, 'profile', NEW.profile,
            'challenge', NEW.challenge_sha256 IS NOT NULL, 'approval', NEW.approval, 'names', NEW.names,
            'validity_days', NEW.validity_days, 'enabled', NEW.enabled,
            'requests_per_minute', NEW.requests_per_minute, 'challenge_webhook', NEW.challenge_webhook));
      ELSE
      IF NEW.ca_id IS DISTINCT FROM OLD.ca_id THEN changed := changed || 'ca'::text; END IF;
      IF NEW.profile IS DISTINCT FROM OLD.profile THEN changed := changed || 'profile'::text; END IF;
      IF NEW.challenge_sha256 IS DISTINCT FROM OLD.challenge_sha256 THEN changed := changed || 'challenge'::text; END IF;
      IF NEW.approval IS DISTINCT FROM OLD.approval THEN changed := changed || 'approval'::text; END IF;
      IF NEW.names::text IS DISTINCT FROM OLD.names::text THEN changed := changed || 'names'::text; END IF;
      IF NEW.validity_days IS DISTINCT FROM OLD.validity_days THEN changed := changed || 'validity_days'::text; END IF;
      IF NEW.enabled IS DISTINCT FROM OLD.enabled THEN changed := changed || 'enabled'::text; END IF;
      IF NEW.requests_per_minute IS DISTINCT FROM OLD.requests_per_minute THEN changed := changed || 'requests_per_minute'::text; END IF;
      IF NEW.challenge_webhook IS DISTINCT FROM OLD.challenge_webhook THEN changed := changed || 'challenge_webhook'::text; END IF;
        IF cardinality(changed) > 0 THEN
          PERFORM ca_api_event('enrolment.endpoint.updated', ca_api_event_actor(NULL), NEW.ca_id, NULL,
            json_build_object('protocol', NEW.protocol, 'label', NEW.label, 'changed', changed));
        END IF;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_ca_created AFTER INSERT ON ca_api_certificate_authorities
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_ca_created()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_ca_changed AFTER UPDATE ON ca_api_certificate_authorities
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((new.revoked AND (NOT old.revoked)) OR (new.updated IS DISTINCT FROM old.updated)))
    EXECUTE FUNCTION ca_api_event_ca_changed()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_ca_issuance_policy_updated AFTER UPDATE ON ca_api_certificate_authorities
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((new.issuance_policy IS DISTINCT FROM old.issuance_policy))
    EXECUTE FUNCTION ca_api_event_ca_issuance_policy_updated()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_user_created AFTER INSERT ON ca_api_users
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_user_created()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_user_changed AFTER UPDATE ON ca_api_users
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((new.updated IS DISTINCT FROM old.updated))
    EXECUTE FUNCTION ca_api_event_user_changed()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_user_deleted AFTER DELETE ON ca_api_users
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_user_deleted()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_webhook_created AFTER INSERT ON ca_api_webhook_endpoints
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_webhook_created()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_webhook_removed AFTER DELETE ON ca_api_webhook_endpoints
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_webhook_removed()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_webhook_rotated AFTER UPDATE ON ca_api_webhook_endpoints
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((new.secret)::text IS DISTINCT FROM (old.secret)::text))
    EXECUTE FUNCTION ca_api_event_webhook_rotated()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_account_created AFTER INSERT ON ca_api_acme_accounts
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_acme_account_created()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_account_deactivated AFTER UPDATE ON ca_api_acme_accounts
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((((new.status)::text = 'deactivated'::text) AND ((old.status)::text IS DISTINCT FROM 'deactivated'::text)))
    EXECUTE FUNCTION ca_api_event_acme_account_deactivated()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_policy_inserted AFTER INSERT ON ca_api_acme_policies
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_acme_policy_updated()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_policy_updated AFTER UPDATE ON ca_api_acme_policies
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((new.eab_required IS DISTINCT FROM old.eab_required) OR ((new.allow)::text IS DISTINCT FROM (old.allow)::text) OR ((new.deny)::text IS DISTINCT FROM (old.deny)::text)))
    EXECUTE FUNCTION ca_api_event_acme_policy_updated()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_acme_eab_key_created AFTER INSERT ON ca_api_acme_eab_keys
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_acme_eab_key_created()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_enrolment_decided AFTER UPDATE ON ca_api_enrolment_requests
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((((old.status)::text = 'pending'::text) AND ((new.status)::text <> 'pending'::text)))
    EXECUTE FUNCTION ca_api_event_enrolment_decided()`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ca_api_event_enrolment_endpoint AFTER INSERT OR DELETE OR UPDATE ON ca_api_enrolment_endpoints
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION ca_api_event_enrolment_endpoint()`);
}
