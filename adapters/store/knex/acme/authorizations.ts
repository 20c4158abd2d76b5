/** ACME authorizations and their challenges (RFC 8555 §7.5) on `ca_api_acme_authorizations` / `ca_api_acme_challenges`. */
import type { Knex } from 'knex';
import type { AcmeAuthorizationRecord } from '../../../../lib/ports';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import { fromNullableJson } from '../values';
import { authorizationFromRow, challengeFromRow } from './rows';
import { matchKeys, tuples, type SlugKey } from './slug-keys';

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

export async function findAuthorizationById(db: Knex, id: number): Promise<AcmeAuthorizationRecord | null> {
  return withChallenges((await authorizationQuery(db).where('a.id', id).first()) as Row | undefined);
}

/** Several authorizations by (CA, slug) in one statement; results in input order, null where there is none. */
export async function findAuthorizations(db: Knex, keys: readonly SlugKey[]): Promise<(AcmeAuthorizationRecord | null)[]> {
  const rows = (await authorizationQuery(db).whereIn(['o.ca_id', 'a.slug'], tuples(keys))) as Row[];
  return matchKeys(keys, rows, (r) => [r.ca_id, r.slug], withChallenges);
}

/** Several authorizations by (CA, slug of one of their challenges); results in input order. */
export async function findAuthorizationsByChallenge(db: Knex, keys: readonly SlugKey[]): Promise<(AcmeAuthorizationRecord | null)[]> {
  const rows = (await authorizationQuery(db)
    .select({ challenge_slug: 'c.slug' })
    .join(`${acmeChallenges} as c`, 'c.authorization_id', 'a.id')
    .whereIn(['o.ca_id', 'c.slug'], tuples(keys))) as Row[];
  return matchKeys(keys, rows, (r) => [r.ca_id, r.challenge_slug], withChallenges);
}
