/** ACME accounts (RFC 8555 §7.3) on `ca_api_acme_accounts`. */
import type { Knex } from 'knex';
import type { AcmeAccountRecord, AcmeAccountStatus, AcmeBulkChange, Actor, NewAcmeAccount } from '../../../../lib/ports';
import type { Row } from '../rows';
import { randomSlug } from '../slug';
import { TABLES } from '../tables';
import type { RecordEvents } from '../transaction-events';
import { fromJson, toJson, toNumber } from '../values';
import { accountFromRow } from './rows';
import { matchKeys, tuples, type SlugKey } from './slug-keys';
import { bindEabKey } from './policies';
import { StoreConflictError } from '../../../../lib/ports';

const { acmeAccounts, acmeOrders, acmeAuthorizations } = TABLES;

/** The account itself, as the actor of its own events (over ACME). */
const itself = (row: Row) => ({ type: 'acme_account', id: toNumber(row.id), protocol: 'acme' });

/**
 * Insert, or return the account that already has this key at this CA (RFC 8555 §7.3.1: 200 with it).
 * Call inside a transaction when `eabKid` is given: the key is bound to the new account with it. A
 * new account records `acme.account.created`, naming itself.
 */
export async function createAccount(
  db: Knex,
  account: NewAcmeAccount,
  record: RecordEvents,
): Promise<{ account: AcmeAccountRecord; created: boolean }> {
  const now = new Date();
  const rows = (await db(acmeAccounts)
    .insert({
      slug: randomSlug(),
      ca_id: account.caId,
      status: 'valid',
      thumbprint: account.thumbprint,
      jwk: toJson(account.jwk),
      contact: toJson(account.contact),
      terms_of_service_agreed: account.termsOfServiceAgreed,
      eab_kid: account.eabKid ?? null,
      remote_address: account.remoteAddress ?? null,
      created: now,
      updated: now,
    })
    .onConflict(['ca_id', 'thumbprint'])
    .ignore()
    .returning('*')) as Row[];
  if (rows.length === 1) {
    const created = accountFromRow(rows[0]);
    if (account.eabKid && !(await bindEabKey(db, account.caId, account.eabKid, created.id))) {
      throw new StoreConflictError('The external account binding key is unknown or has already bound an account.', 'order', 'eab_kid');
    }
    const row = rows[0];
    record({
      type: 'acme.account.created',
      actor: itself(row),
      caId: toNumber(row.ca_id),
      data: { account: row.slug, eab_kid: row.eab_kid },
    });
    return { account: created, created: true };
  }
  const existing = await findAccountByThumbprint(db, account.caId, account.thumbprint);
  if (!existing) throw new Error('ACME account vanished between insert and read');
  return { account: existing, created: false };
}

export async function findAccountByThumbprint(db: Knex, caId: number, thumbprint: string): Promise<AcmeAccountRecord | null> {
  const row = (await db(acmeAccounts).where({ ca_id: caId, thumbprint }).first()) as Row | undefined;
  return row ? accountFromRow(row) : null;
}

/** Several accounts by (CA, slug) in one statement; results in input order, null where there is none. */
export async function findAccounts(db: Knex, keys: readonly SlugKey[]): Promise<(AcmeAccountRecord | null)[]> {
  const rows = (await db(acmeAccounts).whereIn(['ca_id', 'slug'], tuples(keys))) as Row[];
  return matchKeys(keys, rows, (r) => [r.ca_id, r.slug], accountFromRow);
}

export async function countAccountsFrom(db: Knex, remoteAddress: string, since: Date): Promise<number> {
  const row = (await db(acmeAccounts)
    .where({ remote_address: remoteAddress })
    .andWhere('created', '>=', since)
    .count({ n: '*' })
    .first()) as Row;
  return toNumber(row.n);
}

/**
 * Call inside a transaction. A status move (`patch.status`) applies while the account is in one of its
 * `from`; then `cascade` (lib/acme/state-machine.ts `onAccountDeactivated`) takes the account's
 * orders in `cascade.orders.from` and those orders' authorizations with it. The account as it is now.
 * A move to `deactivated` records `acme.account.deactivated` (once: the move applies only from `from`),
 * naming `by` — an operator — or, without one, the account itself.
 */
export async function updateAccount(
  db: Knex,
  id: number,
  patch: { contact?: string[]; termsOfServiceAgreed?: boolean; status?: { from: readonly AcmeAccountStatus[]; to: AcmeAccountStatus } },
  record: RecordEvents,
  by: Actor | null,
  cascade?: AcmeBulkChange,
): Promise<AcmeAccountRecord> {
  const now = new Date();
  const row: Row = { updated: now };
  if (patch.contact) row.contact = toJson(patch.contact);
  if (patch.termsOfServiceAgreed !== undefined) row.terms_of_service_agreed = patch.termsOfServiceAgreed;
  let query = db(acmeAccounts).where({ id });
  if (patch.status) {
    row.status = patch.status.to;
    query = query.whereIn('status', [...patch.status.from]);
  }
  const [updated] = (await query.update(row).returning('*')) as Row[];
  if (!updated) {
    const current = (await db(acmeAccounts).where({ id }).first()) as Row | undefined;
    if (!current) throw new Error('ACME account not found');
    return accountFromRow(current);
  }
  if (patch.status?.to === 'deactivated') {
    record({
      type: 'acme.account.deactivated',
      actor: by ?? itself(updated),
      caId: toNumber(updated.ca_id),
      data: { account: updated.slug, contact: fromJson<unknown>(updated.contact) },
    });
  }
  if (patch.status && cascade?.orders) {
    const { from, to, error } = cascade.orders;
    const open = db(acmeOrders)
      .select('id')
      .where({ account_id: id })
      .whereIn('status', [...from]);
    if (cascade.authorizations) {
      const moved = cascade.authorizations;
      await db(acmeAuthorizations)
        .whereIn('order_id', open.clone())
        .whereIn('status', [...moved.from])
        .update({ status: moved.to });
    }
    await db(acmeOrders)
      .whereIn('id', open)
      .update({ status: to, error: toJson(error), updated: now });
  }
  return accountFromRow(updated);
}

export async function changeAccountKey(
  db: Knex,
  id: number,
  jwk: Record<string, string>,
  thumbprint: string,
): Promise<AcmeAccountRecord | null> {
  const rows = (await db.raw(
    `UPDATE ?? SET jwk = ?, thumbprint = ?, updated = ? WHERE id = ?
       AND NOT EXISTS (SELECT 1 FROM ?? other WHERE other.ca_id = ??.ca_id AND other.thumbprint = ?)
     RETURNING *`,
    [acmeAccounts, toJson(jwk), thumbprint, new Date(), id, acmeAccounts, acmeAccounts, thumbprint],
  )) as { rows: Row[] };
  return rows.rows.length === 1 ? accountFromRow(rows.rows[0]) : null;
}

export async function listAccounts(db: Knex, caId: number): Promise<AcmeAccountRecord[]> {
  return ((await db(acmeAccounts).where({ ca_id: caId }).orderBy('id', 'asc')) as Row[]).map(accountFromRow);
}
