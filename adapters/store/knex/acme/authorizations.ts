/** ACME authorizations and their challenges (RFC 8555 §7.5) on `ca_api_acme_authorizations` / `ca_api_acme_challenges`. */
import type { Knex } from 'knex';
import type { AcmeAuthorizationRecord } from '../../../../lib/ports';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import { fromNullableJson, toJson, toNumber } from '../values';
import { authorizationFromRow, challengeFromRow } from './rows';

const { acmeOrders, acmeAuthorizations, acmeChallenges } = TABLES;

/** The authorization columns, the order's `account_id` and `ca_id`, and its challenges (in id order) as one JSON array: one statement. */
function authorizationQuery(db: Knex): Knex.QueryBuilder {
  return db(`${acmeAuthorizations} as a`)
    .join(`${acmeOrders} as o`, 'o.id', 'a.order_id')
    .select(
      'a.*',
      'o.account_id',
      'o.ca_id',
      db.raw(`(SELECT json_agg(ch ORDER BY ch.id) FROM ?? ch WHERE ch.authorization_id = a.id) AS challenges`, [acmeChallenges]),
    );
}

function withChallenges(row: Row | undefined): AcmeAuthorizationRecord | null {
  if (!row) return null;
  // Timestamps inside JSON are text; challengeFromRow reads both forms.
  return authorizationFromRow(row, (fromNullableJson<Row[]>(row.challenges) ?? []).map(challengeFromRow));
}

export async function findAuthorization(db: Knex, caId: number, slug: string): Promise<AcmeAuthorizationRecord | null> {
  return withChallenges((await authorizationQuery(db).where({ 'a.slug': slug, 'o.ca_id': caId }).first()) as Row | undefined);
}

export async function findAuthorizationById(db: Knex, id: number): Promise<AcmeAuthorizationRecord | null> {
  return withChallenges((await authorizationQuery(db).where('a.id', id).first()) as Row | undefined);
}

export async function findAuthorizationByChallenge(db: Knex, caId: number, slug: string): Promise<AcmeAuthorizationRecord | null> {
  const row = (await authorizationQuery(db)
    .join(`${acmeChallenges} as c`, 'c.authorization_id', 'a.id')
    .where({ 'c.slug': slug, 'o.ca_id': caId })
    .first()) as Row | undefined;
  return withChallenges(row);
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
