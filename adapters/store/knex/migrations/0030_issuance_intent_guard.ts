/**
 * The issuance intent's mark and guard in one statement (docs/DESIGN.md "Issuing authority").
 *
 * Migration 0029's trigger first checked, in a statement of its own, that no intent of the stored
 * certificates had been given up, then marked them issued. The check read without a lock: an intent
 * given up by another connection whose transaction had not yet committed (another instance's sweep,
 * a refusal) passed it, the mark then waited for that transaction and went ahead on the row it had
 * committed — a certificate stored under a failed intent. Here the mark is the check: the UPDATE
 * takes each intent's row lock, waits for a concurrent give-up and re-reads the row it committed
 * (PostgreSQL's READ COMMITTED re-check of an updated row), and returns whether the intent is failed;
 * if one is, the statement that stores the certificate fails and nothing of it is kept. A give-up
 * that comes second waits for the certificate's transaction and then finds the intent issued (its
 * `certificate_id IS NULL` no longer holds). One nested statement per storing statement instead of two.
 *
 * And an index for the intents given up, which the admin dashboard counts over the last day and the
 * Signatures page and `ca-admin list_intents --state failed` list: few among many issued ones.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ca_api_issuance_intents_stored() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      given_up boolean;
    BEGIN
      WITH marked AS (
        UPDATE ca_api_issuance_intents i SET certificate_id = n.id
          FROM stored n WHERE i.ca_id = n.ca_id AND i.serial = n.serial AND i.certificate_id IS NULL
          RETURNING i.failed
      )
      SELECT bool_or(failed IS NOT NULL) INTO given_up FROM marked;
      -- An intent given up (failed: interrupted past its lease, or refused) keeps its certificate out:
      -- the way in has been answered otherwise, perhaps with another certificate for the same order.
      IF given_up THEN
        RAISE EXCEPTION 'the issuance intent of this certificate was given up: it is not stored'
          USING ERRCODE = 'unique_violation', CONSTRAINT = 'ca_api_issuance_intents_given_up', TABLE = 'ca_api_certificates';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE INDEX ca_api_issuance_intents_failed ON ca_api_issuance_intents (created) WHERE failed IS NOT NULL');
}

/** Migration 0029's function, as it was, and no index of failed intents. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX ca_api_issuance_intents_failed');
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ca_api_issuance_intents_stored() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- An intent given up (failed: interrupted past its lease, or refused) keeps its certificate out:
      -- the way in has been answered otherwise, perhaps with another certificate for the same order.
      IF EXISTS (SELECT 1 FROM stored n JOIN ca_api_issuance_intents i ON i.ca_id = n.ca_id AND i.serial = n.serial WHERE i.failed IS NOT NULL) THEN
        RAISE EXCEPTION 'the issuance intent of this certificate was given up: it is not stored'
          USING ERRCODE = 'unique_violation', CONSTRAINT = 'ca_api_issuance_intents_given_up', TABLE = 'ca_api_certificates';
      END IF;
      UPDATE ca_api_issuance_intents i SET certificate_id = n.id
        FROM stored n WHERE i.ca_id = n.ca_id AND i.serial = n.serial AND i.certificate_id IS NULL;
      RETURN NULL;
    END $$`);
}
