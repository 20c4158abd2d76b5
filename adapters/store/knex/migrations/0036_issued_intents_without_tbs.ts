/**
 * An issued intent lets go of its TBSCertificate (docs/DESIGN.md "Issuing authority").
 *
 * The TBS bytes are what an intent holds so that a retried or taken-over request signs the same
 * to-be-signed certificate again under its serial (migration 0029). Once the certificate is stored,
 * the certificate holds them (its first element): keeping a second copy in every issued intent only
 * doubled, for every certificate ever issued, the bytes written when it was marked and the table an
 * operator keeps for years. The statement trigger that marks an intent issued now also clears its
 * `tbs`; pending and failed intents keep theirs (a failed one shows what was signed and given up).
 *
 * Before it lets the copy go, it checks it: the stored certificate must be the recorded TBSCertificate
 * signed (the TBS bytes are the certificate's first element), or the statement fails and stores
 * nothing — a serial names one to-be-signed certificate, now enforced where it is stored rather than
 * only checked after the fact.
 *
 * `down` puts migration 0030's function back and makes `tbs` required again; an issued intent's
 * cleared bytes are not recovered (an empty value stands in: its certificate holds them).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ca_api_issuance_intents ALTER COLUMN tbs DROP NOT NULL');
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ca_api_issuance_intents_stored() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      given_up boolean;
      other_tbs boolean;
    BEGIN
      WITH marked AS (
        -- certificate_id stays NULL (and the statement fails below) when the certificate is not the intent's TBS signed.
        UPDATE ca_api_issuance_intents i
           SET certificate_id = CASE WHEN position(i.tbs IN n.der) > 0 THEN n.id END, tbs = NULL
          FROM stored n WHERE i.ca_id = n.ca_id AND i.serial = n.serial AND i.certificate_id IS NULL
          RETURNING i.failed, i.certificate_id
      )
      SELECT bool_or(failed IS NOT NULL), bool_or(certificate_id IS NULL) INTO given_up, other_tbs FROM marked;
      -- An intent given up (failed: interrupted past its lease, or refused) keeps its certificate out:
      -- the way in has been answered otherwise, perhaps with another certificate for the same order.
      IF given_up THEN
        RAISE EXCEPTION 'the issuance intent of this certificate was given up: it is not stored'
          USING ERRCODE = 'unique_violation', CONSTRAINT = 'ca_api_issuance_intents_given_up', TABLE = 'ca_api_certificates';
      END IF;
      -- A serial names one to-be-signed certificate: the one its intent recorded.
      IF other_tbs THEN
        RAISE EXCEPTION 'this certificate is not the TBSCertificate its issuance intent recorded: it is not stored'
          USING ERRCODE = 'unique_violation', CONSTRAINT = 'ca_api_issuance_intents_other_tbs', TABLE = 'ca_api_certificates';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw('UPDATE ca_api_issuance_intents SET tbs = NULL WHERE certificate_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
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
  await knex.raw(`UPDATE ca_api_issuance_intents SET tbs = '\\x'::bytea WHERE tbs IS NULL`);
  await knex.raw('ALTER TABLE ca_api_issuance_intents ALTER COLUMN tbs SET NOT NULL');
}
