/**
 * The statements every ACME order makes — the account lookup of each request, then the
 * authorization, challenge or order it names; the new order; starting a validation; the changes of
 * lib/acme/state-machine.ts (recording a validation, starting an issuance); storing the certificate — grouped
 * across concurrent requests into one statement per kind (group-commit.ts): with 32 clients each
 * costs a fraction of a round trip to the database instead of one (bench/acme). The root store's
 * only: inside a transaction, each runs on the transaction, as a group of one.
 */
import type { Knex } from 'knex';
import { GroupCommit } from '../group-commit';
import * as accounts from './accounts';
import * as authorizations from './authorizations';
import * as changes from './changes';
import * as orders from './orders';
import * as work from './work';

/** Each kind: many items in one statement, results in input order. */
export const STATEMENTS = {
  account: accounts.findAccounts,
  authorization: authorizations.findAuthorizations,
  authorizationByChallenge: authorizations.findAuthorizationsByChallenge,
  order: orders.findOrders,
  orderCertificate: orders.findOrderCertificates,
  startValidation: work.startValidations,
  // Two groups of the same statement, each written while the other is in flight, as recording a
  // validation and starting an issuance were before they became changes: a change of an order
  // alone (finalize, issuance) does not wait behind the validations.
  change: changes.applyChanges,
  orderChange: changes.applyChanges,
  completeIssuance: work.completeIssuances,
  createOrder: orders.createOrders,
};

type Kind = keyof typeof STATEMENTS;
type Item<K extends Kind> = Parameters<(typeof STATEMENTS)[K]>[1][number];
type Result<K extends Kind> = Awaited<ReturnType<(typeof STATEMENTS)[K]>>[number];
type Many<K extends Kind> = (db: Knex, items: readonly Item<K>[]) => Promise<Result<K>[]>;

export type AcmeGroups = { [K in Kind]: GroupCommit<Item<K>, Result<K>> };

/** The statements of `db`, each grouped: many items in one statement, a group of one the same way. */
export function groupedStatements(db: Knex): AcmeGroups {
  const groups = {} as Record<Kind, GroupCommit<unknown, unknown>>;
  for (const kind of Object.keys(STATEMENTS) as Kind[]) {
    const many = STATEMENTS[kind] as unknown as (db: Knex, items: readonly unknown[]) => Promise<unknown[]>;
    groups[kind] = new GroupCommit(
      (items) => many(db, items),
      async (item) => (await many(db, [item]))[0],
    );
  }
  return groups as unknown as AcmeGroups;
}

/** One item: through its group when there is one, else on `db` alone. */
export async function runOne<K extends Kind>(db: Knex, groups: AcmeGroups | null, kind: K, item: Item<K>): Promise<Result<K>> {
  if (groups) return (groups[kind] as GroupCommit<Item<K>, Result<K>>).write(item);
  return (await (STATEMENTS[kind] as unknown as Many<K>)(db, [item]))[0];
}
