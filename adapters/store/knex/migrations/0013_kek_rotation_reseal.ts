/**
 * `ca-admin rotate_kek` re-seals webhook secrets under the new key-encryption key in its own
 * transaction (adapters/store/knex/secret-resealing.ts). The stored envelope changes, the secret does
 * not: the `webhook.secret_rotated` trigger of migration 0012 skips rows the rotation rewrites, which
 * it marks with the transaction-local setting `ca_api.kek_rotation`. The rotation itself is recorded
 * as `kek.rotated`, naming the webhooks and ACME binding keys it re-sealed.
 */
import type { Knex } from 'knex';

const EVENT = (body: string) => `
  CREATE OR REPLACE FUNCTION ca_api_event_webhook_rotated() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    ${body}
    PERFORM ca_api_event('webhook.secret_rotated', ca_api_event_actor(NULL), NULL, NULL,
      json_build_object('webhook', NEW.id, 'url', NEW.url, 'event_types', NEW.event_types));
    RETURN NULL;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(EVENT(`IF current_setting('ca_api.kek_rotation', true) = 'on' THEN RETURN NULL; END IF;`));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(EVENT(''));
}
