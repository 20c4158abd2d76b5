/**
 * The audit log (docs/operations/audit-and-events.md "Audit", docs/DESIGN.md "Audit log"): the outbox of domain
 * events (migration 0004) made tamper-evident and append-only, and the changes it did not record yet.
 *
 * - **A hash chain.** A BEFORE INSERT trigger sets each event's `hash` to SHA-256 over the previous
 *   event's hash and a canonical text of the row. It takes the event order lock of 0004 first (the
 *   event writers already hold it; a plain INSERT from outside gets it here), so "the previous event"
 *   is the one with the highest id, and ids still rise in commit order. The canonical text does not
 *   depend on the session: the commit time is written in UTC to the microsecond, `json` columns are
 *   their stored text (never re-serialised, unlike `jsonb`), and every field is prefixed by its
 *   length in bytes, so no value can pass for two. `ca-admin verify_audit_log` recomputes it in
 *   JavaScript (lib/ca/audit-chain.ts), not with this function, which an intruder could replace.
 * - **Append-only.** UPDATE, DELETE and TRUNCATE of `ca_api_events` are refused by triggers. Someone
 *   who owns the table can disable them — the chain is what tells on them afterwards.
 * - **The source address of sign orders**: `ca_api_orders.source_address` (the REST client's
 *   `req.ip`, written with the order), named in the actor of the order's `certificate.issued` or
 *   `order.failed` — the triggers find the order, so the address needs no transaction setting.
 * - **New events**, by deferred constraint triggers like 0004's (same transaction as the change, at
 *   commit): `user.deleted`, `user.password_changed`, `user.permissions_changed`. A KEK rotation is
 *   recorded by the store in the rotation's own transaction (`kek.rotated`): the rows' change is a
 *   re-wrapped key, which a row trigger cannot tell apart from an OCSP responder being renewed.
 *
 * Frozen text: the SQL is written out here in full, not taken from another migration, so that a
 * change to an older migration never changes what this one does (test/architecture/frozen-migrations.test.ts).
 */
import type { Knex } from 'knex';

const EVENTS = 'ca_api_events';
/** The event order lock of migration 0004 ('CAAP', 'EVTS'). */
const LOCK_KEYS = '1128350032, 1163285587';
/** The "previous hash" of the first event. */
const GENESIS_HASH = '0'.repeat(64);

const USER_TRIGGERS: readonly { name: string; on: string; when?: string }[] = [
  { name: 'ca_api_event_user_deleted', on: 'DELETE' },
  // Every user change sets `updated` (adapters/store/knex/users.ts); grants live in another table.
  { name: 'ca_api_event_user_changed', on: 'UPDATE', when: 'NEW.updated IS DISTINCT FROM OLD.updated' },
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE ${EVENTS} ADD COLUMN hash char(64)`);
  // Length-prefixed fields: `-` for NULL, else `<bytes>:<text>`. Mirrored by lib/ca/audit-chain.ts.
  await knex.raw(`
    CREATE FUNCTION ca_api_audit_field(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN v IS NULL THEN '-' ELSE octet_length(v)::text || ':' || v END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_audit_hash(prev text, e ${EVENTS}) RETURNS text LANGUAGE sql STABLE AS $$
      SELECT encode(sha256(convert_to(prev || '|' || ca_api_audit_field(e.id::text)
        || ca_api_audit_field(to_char(e.created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
        || ca_api_audit_field(e.type::text) || ca_api_audit_field(e.actor::text) || ca_api_audit_field(e.ca_serial::text)
        || ca_api_audit_field(e.serial::text) || ca_api_audit_field(e.data::text), 'UTF8')), 'hex') $$`);

  // Chain what is there, oldest first.
  await knex.raw(`
    DO $$
    DECLARE
      prev text := '${GENESIS_HASH}';
      e ${EVENTS};
    BEGIN
      FOR e IN SELECT * FROM ${EVENTS} ORDER BY id LOOP
        prev := ca_api_audit_hash(prev, e);
        UPDATE ${EVENTS} SET hash = prev WHERE id = e.id;
      END LOOP;
    END $$`);
  await knex.raw(`ALTER TABLE ${EVENTS} ALTER COLUMN hash SET NOT NULL`);

  await knex.raw(`
    CREATE FUNCTION ca_api_audit_chain() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      prev record;
    BEGIN
      PERFORM pg_advisory_xact_lock(${LOCK_KEYS});
      SELECT id, hash INTO prev FROM ${EVENTS} ORDER BY id DESC LIMIT 1;
      -- An INSERT that drew its id before waiting for the lock: a new one, so ids keep the chain's order.
      IF prev.id IS NOT NULL AND NEW.id <= prev.id THEN
        NEW.id := nextval(pg_get_serial_sequence('${EVENTS}', 'id'));
      END IF;
      NEW.hash := ca_api_audit_hash(coalesce(prev.hash, '${GENESIS_HASH}'), NEW);
      RETURN NEW;
    END $$`);
  await knex.raw(`CREATE TRIGGER ca_api_audit_chain BEFORE INSERT ON ${EVENTS} FOR EACH ROW EXECUTE FUNCTION ca_api_audit_chain()`);

  await knex.raw(`
    CREATE FUNCTION ca_api_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ca_api_events is append-only (the audit log): % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ca_api_audit_append_only BEFORE UPDATE OR DELETE ON ${EVENTS}
    FOR EACH ROW EXECUTE FUNCTION ca_api_audit_append_only()`);
  await knex.raw(`
    CREATE TRIGGER ca_api_audit_no_truncate BEFORE TRUNCATE ON ${EVENTS}
    FOR EACH STATEMENT EXECUTE FUNCTION ca_api_audit_append_only()`);

  await knex.raw(`
    CREATE FUNCTION ca_api_event_user_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('user.deleted', ca_api_event_actor(NULL), NULL, NULL,
        json_build_object('username', OLD.username, 'user_id', OLD.id));
      RETURN NULL;
    END $$`);
  // The permissions as they are at commit (never a password hash: only whether it changed).
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
  await knex.raw('ALTER TABLE ca_api_orders ADD COLUMN source_address varchar(100)');
  await knex.raw(ORDER_ACTOR);
  await knex.raw(CERTIFICATE_STORED);
  await knex.raw(ORDER_FAILED);

  for (const t of USER_TRIGGERS) {
    await knex.raw(`
      CREATE CONSTRAINT TRIGGER ${t.name} AFTER ${t.on} ON ca_api_users DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW ${t.when ? `WHEN (${t.when})` : ''} EXECUTE FUNCTION ${t.name}()`);
  }
}

/** An order's actor (migration 0004's `ca_api_event_actor`), with the address the order came from. */
const ORDER_ACTOR = `
  CREATE FUNCTION ca_api_event_order_actor(order_user_id integer, address text) RETURNS json LANGUAGE plpgsql STABLE AS $$
  BEGIN
    IF order_user_id IS NOT NULL AND address IS NOT NULL THEN
      RETURN json_build_object('type', 'api_user', 'id', order_user_id,
        'name', (SELECT u.username FROM ca_api_users u WHERE u.id = order_user_id), 'protocol', 'rest', 'address', address);
    END IF;
    RETURN ca_api_event_actor(order_user_id);
  END $$`;

/** Migration 0009's certificate trigger, the order's address added to its actor. */
const CERTIFICATE_STORED = `
  CREATE OR REPLACE FUNCTION ca_api_event_certificate_stored() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    o record;
    actor json;
  BEGIN
    SELECT slug, user_id, source_address INTO o FROM ca_api_orders WHERE certificate_id = NEW.id LIMIT 1;
    actor := ca_api_event_order_actor(o.user_id, o.source_address);
    IF o.user_id IS NULL THEN
      SELECT json_build_object('type', 'acme_account', 'id', a.account_id, 'protocol', 'acme') INTO actor
        FROM ca_api_acme_orders a WHERE a.certificate_id = NEW.id LIMIT 1;
      actor := coalesce(actor, ca_api_event_actor(NULL));
    END IF;
    PERFORM ca_api_event(
      CASE WHEN NEW.csr IS NULL THEN 'certificate.imported' ELSE 'certificate.issued' END,
      actor, NEW.ca_id, NEW.serial,
      json_build_object('cn', NEW.cn, 'profile', NEW.profile, 'not_before', NEW.not_before, 'not_after', NEW.not_after,
        'autogenerated', NEW.autogenerated, 'order', o.slug));
    RETURN NULL;
  END $$`;

/** Migration 0004's `order.failed` trigger, the order's address in its actor. */
const ORDER_FAILED = `
  CREATE OR REPLACE FUNCTION ca_api_event_order_failed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.status = 'failed' THEN RETURN NULL; END IF;
    PERFORM ca_api_event('order.failed', ca_api_event_order_actor(NEW.user_id, NEW.source_address),
      NEW.ca_id, NULL, json_build_object('order', NEW.slug, 'error', NEW.error, 'profile', NEW.request->>'profile'));
    RETURN NULL;
  END $$`;

/** The `order.failed` trigger as migration 0004 made it, for `down`. */
const ORDER_FAILED_0004 = `
  CREATE OR REPLACE FUNCTION ca_api_event_order_failed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.status = 'failed' THEN RETURN NULL; END IF;
    PERFORM ca_api_event('order.failed', ca_api_event_actor(NEW.user_id),
      NEW.ca_id, NULL, json_build_object('order', NEW.slug, 'error', NEW.error, 'profile', NEW.request->>'profile'));
    RETURN NULL;
  END $$`;

/** The certificate trigger as migration 0009 left it, for `down`. */
const CERTIFICATE_STORED_0009 = `
    CREATE OR REPLACE FUNCTION ca_api_event_certificate_stored() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      o record;
      actor json;
    BEGIN
      SELECT slug, user_id INTO o FROM ca_api_orders WHERE certificate_id = NEW.id LIMIT 1;
      actor := ca_api_event_actor(o.user_id);
      IF o.user_id IS NULL THEN
        SELECT json_build_object('type', 'acme_account', 'id', a.account_id, 'protocol', 'acme') INTO actor
          FROM ca_api_acme_orders a WHERE a.certificate_id = NEW.id LIMIT 1;
        actor := coalesce(actor, ca_api_event_actor(NULL));
      END IF;
      PERFORM ca_api_event(
        CASE WHEN NEW.csr IS NULL THEN 'certificate.imported' ELSE 'certificate.issued' END,
        actor, NEW.ca_id, NEW.serial,
        json_build_object('cn', NEW.cn, 'profile', NEW.profile, 'not_before', NEW.not_before, 'not_after', NEW.not_after,
          'autogenerated', NEW.autogenerated, 'order', o.slug));
      RETURN NULL;
    END $$`;

export async function down(knex: Knex): Promise<void> {
  await knex.raw(ORDER_FAILED_0004);
  await knex.raw(CERTIFICATE_STORED_0009);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_event_order_actor(integer, text)');
  await knex.raw('ALTER TABLE ca_api_orders DROP COLUMN source_address');
  for (const t of USER_TRIGGERS) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${t.name} ON ca_api_users`);
    await knex.raw(`DROP FUNCTION IF EXISTS ${t.name}()`);
  }
  await knex.raw(`DROP TRIGGER IF EXISTS ca_api_audit_no_truncate ON ${EVENTS}`);
  await knex.raw(`DROP TRIGGER IF EXISTS ca_api_audit_append_only ON ${EVENTS}`);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_audit_append_only()');
  await knex.raw(`DROP TRIGGER IF EXISTS ca_api_audit_chain ON ${EVENTS}`);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_audit_chain()');
  await knex.raw(`DROP FUNCTION IF EXISTS ca_api_audit_hash(text, ${EVENTS})`);
  await knex.raw('DROP FUNCTION IF EXISTS ca_api_audit_field(text)');
  await knex.raw(`ALTER TABLE ${EVENTS} DROP COLUMN hash`);
}
