/**
 * The lookups every ACME request makes — its account, then the authorization, challenge or order it
 * names — grouped across concurrent requests into one statement per kind (group-commit.ts): with 32
 * clients each lookup costs a fraction of a round trip to the database instead of one (bench/acme).
 * The root store's only: inside a transaction, reads run on the transaction, one by one.
 */
import type { Knex } from 'knex';
import type { AcmeAccountRecord, AcmeAuthorizationRecord, AcmeOrderRecord, OrderCertificate } from '../../../../lib/ports';
import { GroupCommit } from '../group-commit';
import * as accounts from './accounts';
import * as authorizations from './authorizations';
import * as orders from './orders';
import type { SlugKey } from './slug-keys';

type ReadMany<R> = (db: Knex, keys: readonly SlugKey[]) => Promise<(R | null)[]>;

/** Each lookup by (CA, slug): many keys in one statement. */
export const READS = {
  account: accounts.findAccounts as ReadMany<AcmeAccountRecord>,
  authorization: authorizations.findAuthorizations as ReadMany<AcmeAuthorizationRecord>,
  authorizationByChallenge: authorizations.findAuthorizationsByChallenge as ReadMany<AcmeAuthorizationRecord>,
  order: orders.findOrders as ReadMany<AcmeOrderRecord>,
  orderCertificate: orders.findOrderCertificates as ReadMany<OrderCertificate>,
};

type Kind = keyof typeof READS;
type Result<K extends Kind> = Awaited<ReturnType<(typeof READS)[K]>>[number];

export type AcmeReads = { [K in Kind]: GroupCommit<SlugKey, Result<K>> };

/** The lookups of `db`, each grouped: many keys in one statement, a group of one the same way. */
export function groupedReads(db: Knex): AcmeReads {
  const grouped = <R>(many: ReadMany<R>) =>
    new GroupCommit<SlugKey, R | null>(
      (keys) => many(db, keys),
      async (key) => (await many(db, [key]))[0],
    );
  return {
    account: grouped(READS.account),
    authorization: grouped(READS.authorization),
    authorizationByChallenge: grouped(READS.authorizationByChallenge),
    order: grouped(READS.order),
    orderCertificate: grouped(READS.orderCertificate),
  };
}

/** One lookup: through the group when there is one, else on `db` alone. */
export async function readOne<K extends Kind>(db: Knex, reads: AcmeReads | null, kind: K, key: SlugKey): Promise<Result<K>> {
  if (reads) return (reads[kind] as GroupCommit<SlugKey, Result<K>>).write(key);
  return ((await (READS[kind] as ReadMany<NonNullable<Result<K>>>)(db, [key]))[0] ?? null) as Result<K>;
}
