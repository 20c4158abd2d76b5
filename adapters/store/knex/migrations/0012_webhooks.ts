/**
 * Webhooks (docs/operations/webhooks.md, docs/DESIGN.md "Webhooks"): endpoints that receive the domain events
 * of the outbox (migration 0004), the events they gave up on, and the events only webhooks needed:
 *
 * - `ca_api_webhook_endpoints`: URL, secret (sealed, never readable in a dump), the event types it
 *   wants, `position` (the id of the last event it has handled: delivered, skipped as not wanted, or
 *   dead-lettered), the lease that lets one instance of the fleet deliver to it at a time, and the
 *   back-off state of the event it is trying.
 * - `ca_api_webhook_dead_letters`: events given up on after the attempt limit.
 * - `ca_api_certificate_expiry_notices`: one row per certificate announced as expiring; its primary
 *   key makes the announcement once-only whichever instance finds the certificate first, and its
 *   trigger writes the `certificate.expiring` event in the same transaction.
 * - Events for webhook changes (created, removed, secret rotated: the audit log reads the outbox), for
 *   ACME accounts created, and for CRLs published (a CRL number drawn: lib/ca/crls.ts draws one per
 *   CRL it builds, right before signing it).
 *
 * All the triggers are deferred constraint triggers through `ca_api_event`, like migration 0004's:
 * events at commit time, ids in commit order.
 */
import type { Knex } from 'knex';

const ENDPOINTS = 'ca_api_webhook_endpoints';
const DEAD = 'ca_api_webhook_dead_letters';
const NOTICES = 'ca_api_certificate_expiry_notices';

const TRIGGERS: readonly { name: string; table: string; on: string; when?: string }[] = [
  { name: 'ca_api_event_webhook_created', table: ENDPOINTS, on: 'INSERT' },
  { name: 'ca_api_event_webhook_removed', table: ENDPOINTS, on: 'DELETE' },
  { name: 'ca_api_event_webhook_rotated', table: ENDPOINTS, on: 'UPDATE', when: 'NEW.secret::text IS DISTINCT FROM OLD.secret::text' },
  { name: 'ca_api_event_certificate_expiring', table: NOTICES, on: 'INSERT' },
  { name: 'ca_api_event_acme_account_created', table: 'ca_api_acme_accounts', on: 'INSERT' },
  { name: 'ca_api_event_crl_published', table: 'ca_api_crl_numbers', on: 'INSERT OR UPDATE' },
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(ENDPOINTS, (t) => {
    t.increments('id').primary();
    t.text('url').notNullable();
    t.json('secret').notNullable();
    // The event types wanted; ["*"] for all.
    t.json('event_types').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.bigInteger('position').notNullable().defaultTo(0);
    t.string('lease_owner', 64).nullable();
    t.timestamp('lease_until', { useTz: true }).nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt', { useTz: true }).nullable();
    t.text('last_error').nullable();
    t.bigInteger('delivered').notNullable().defaultTo(0);
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
  });
  await knex.schema.createTable(DEAD, (t) => {
    t.bigIncrements('id').primary();
    t.integer('endpoint_id').notNullable().references('id').inTable(ENDPOINTS).onDelete('CASCADE');
    t.bigInteger('event_id').notNullable();
    t.string('event_type', 40).notNullable();
    t.integer('attempts').notNullable();
    t.text('last_error').nullable();
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.index(['endpoint_id', 'id']);
  });
  await knex.schema.createTable(NOTICES, (t) => {
    t.integer('certificate_id').primary().references('id').inTable('ca_api_certificates').onDelete('CASCADE');
    t.timestamp('created', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
  });
  // The scan for expiring certificates reads by validity end across CAs.
  await knex.raw('CREATE INDEX ca_api_certificates_not_after_idx ON ca_api_certificates (not_after) WHERE NOT revoked');

  const webhookData = (row: 'NEW' | 'OLD') =>
    `json_build_object('webhook', ${row}.id, 'url', ${row}.url, 'event_types', ${row}.event_types)`;
  await knex.raw(`
    CREATE FUNCTION ca_api_event_webhook_created() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('webhook.created', ca_api_event_actor(NULL), NULL, NULL, ${webhookData('NEW')});
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_webhook_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('webhook.removed', ca_api_event_actor(NULL), NULL, NULL, ${webhookData('OLD')});
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_webhook_rotated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('webhook.secret_rotated', ca_api_event_actor(NULL), NULL, NULL, ${webhookData('NEW')});
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION ca_api_event_certificate_expiring() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      c record;
    BEGIN
      SELECT ca_id, serial, cn, profile, not_after INTO c FROM ca_api_certificates WHERE id = NEW.certificate_id;
      PERFORM ca_api_event('certificate.expiring', json_build_object('type', 'system', 'protocol', 'library'), c.ca_id, c.serial,
        json_build_object('cn', c.cn, 'profile', c.profile, 'not_after', c.not_after));
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
    CREATE FUNCTION ca_api_event_crl_published() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ca_api_event('crl.published', json_build_object('type', 'system', 'protocol', 'library'), NEW.ca_id, NULL,
        json_build_object('scope', NEW.scope, 'crl_number', NEW.last_number::text));
      RETURN NULL;
    END $$`);

  for (const t of TRIGGERS) {
    await knex.raw(`
      CREATE CONSTRAINT TRIGGER ${t.name} AFTER ${t.on} ON ${t.table} DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW ${t.when ? `WHEN (${t.when})` : ''} EXECUTE FUNCTION ${t.name}()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const t of TRIGGERS) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${t.name} ON ${t.table}`);
    await knex.raw(`DROP FUNCTION IF EXISTS ${t.name}()`);
  }
  await knex.raw('DROP INDEX IF EXISTS ca_api_certificates_not_after_idx');
  await knex.schema.dropTableIfExists(NOTICES);
  await knex.schema.dropTableIfExists(DEAD);
  await knex.schema.dropTableIfExists(ENDPOINTS);
}
