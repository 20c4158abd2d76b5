/**
 * The address an ACME order was finalized from (`ca_api_acme_orders.source_address`, Express's
 * `req.ip` of the finalize request), named in the actor of its certificate's `certificate.issued`
 * event as a REST order's address is (migration 0011): the audit log says from where every
 * certificate was asked for, whichever protocol asked.
 */
import type { Knex } from 'knex';
import { CERTIFICATE_STORED } from './0011_audit_chain';

/** The ACME actor of migration 0011's certificate trigger, and the same with the order's address. */
const ACME_ACTOR = "json_build_object('type', 'acme_account', 'id', a.account_id, 'protocol', 'acme')";
const ACME_ACTOR_WITH_ADDRESS = `CASE WHEN a.source_address IS NULL THEN ${ACME_ACTOR}
           ELSE json_build_object('type', 'acme_account', 'id', a.account_id, 'protocol', 'acme', 'address', a.source_address) END`;

/** Migration 0011's certificate trigger, an ACME order's address added to its account's actor. */
export function certificateStoredWithAcmeAddress(): string {
  if (!CERTIFICATE_STORED.includes(ACME_ACTOR))
    throw new Error('migration 0014: the certificate trigger of 0011 has no ACME actor to extend');
  return CERTIFICATE_STORED.replace(ACME_ACTOR, ACME_ACTOR_WITH_ADDRESS);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ca_api_acme_orders ADD COLUMN source_address varchar(100)');
  await knex.raw(certificateStoredWithAcmeAddress());
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(CERTIFICATE_STORED);
  await knex.raw('ALTER TABLE ca_api_acme_orders DROP COLUMN source_address');
}
