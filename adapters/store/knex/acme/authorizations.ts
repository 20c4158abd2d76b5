/** ACME authorizations and their challenges (RFC 8555 §7.5) on `ca_api_acme_authorizations` / `ca_api_acme_challenges`. */
import type { Knex } from 'knex';
import type { AcmeAuthorizationRecord } from '../../../../lib/ports';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import { toJson, toNumber } from '../values';
import { authorizationFromRow, challengeFromRow } from './rows';

const { acmeOrders, acmeAuthorizations, acmeChallenges } = TABLES;

function authorizationQuery(db: Knex): Knex.QueryBuilder {
  return db(`${acmeAuthorizations} as a`).join(`${acmeOrders} as o`, 'o.id', 'a.order_id').select('a.*', 'o.account_id', 'o.ca_id');
}

async function withChallenges(db: Knex, row: Row | undefined): Promise<AcmeAuthorizationRecord | null> {
  if (!row) return null;
  const challenges = (await db(acmeChallenges).where({ authorization_id: row.id }).orderBy('id', 'asc')) as Row[];
  return authorizationFromRow(row, challenges.map(challengeFromRow));
}

export async function findAuthorization(db: Knex, caId: number, slug: string): Promise<AcmeAuthorizationRecord | null> {
  return withChallenges(db, (await authorizationQuery(db).where({ 'a.slug': slug, 'o.ca_id': caId }).first()) as Row | undefined);
}

export async function findAuthorizationById(db: Knex, id: number): Promise<AcmeAuthorizationRecord | null> {
  return withChallenges(db, (await authorizationQuery(db).where('a.id', id).first()) as Row | undefined);
}

export async function findAuthorizationByChallenge(db: Knex, caId: number, slug: string): Promise<AcmeAuthorizationRecord | null> {
  const row = (await authorizationQuery(db)
    .join(`${acmeChallenges} as c`, 'c.authorization_id', 'a.id')
    .where({ 'c.slug': slug, 'o.ca_id': caId })
    .first()) as Row | undefined;
  return withChallenges(db, row);
}

/** Call inside a transaction. A deactivated authorization can no longer make its order `ready`. */
export async function deactivateAuthorization(db: Knex, id: number): Promise<AcmeAuthorizationRecord> {
  const [row] = (await db(acmeAuthorizations).where({ id }).update({ status: 'deactivated' }).returning('order_id')) as Row[];
  const error = toJson({ type: 'urn:ietf:params:acme:error:unauthorized', detail: 'An authorization of the order was deactivated.' });
  await db(acmeOrders)
    .where({ id: toNumber(row.order_id) })
    .whereIn('status', ['pending', 'ready'])
    .update({ status: 'invalid', error, updated: new Date() });
  const found = await findAuthorizationById(db, id);
  if (!found) throw new Error('ACME authorization vanished inside its own transaction');
  return found;
}
