/**
 * What a CA allows through ACME, and its external account binding keys (migration 0007). Setting a
 * policy records `acme.policy.updated` when it makes one or changes what it allows; making a key
 * records `acme.eab_key.created` (its key id, never the MAC key); transaction-events.ts.
 */
import type { Knex } from 'knex';
import { DEFAULT_ACME_POLICY, type AcmeCaPolicy, type AcmeEabKeyRecord } from '../../../../lib/ports';
import { updateComparing } from '../row-changes';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import type { RecordEvents } from '../transaction-events';
import { fromJson, toDate, toJson, toNullableNumber, toNumber } from '../values';

const { acmePolicies, acmeEabKeys } = TABLES;

function policyFromRow(row: Row | undefined): AcmeCaPolicy {
  if (!row) return { ...DEFAULT_ACME_POLICY, allow: [], deny: [] };
  return { eabRequired: Boolean(row.eab_required), allow: fromJson<string[]>(row.allow), deny: fromJson<string[]>(row.deny) };
}

export async function policy(db: Knex, caId: number): Promise<AcmeCaPolicy> {
  return policyFromRow((await db(acmePolicies).where({ ca_id: caId }).first()) as Row | undefined);
}

/** Call inside a transaction: read, merge, write. */
export async function setPolicy(db: Knex, caId: number, patch: Partial<AcmeCaPolicy>, record: RecordEvents): Promise<AcmeCaPolicy> {
  const current = (await db(acmePolicies).where({ ca_id: caId }).forUpdate().first()) as Row | undefined;
  const next = { ...policyFromRow(current), ...patch };
  const columns = { eab_required: next.eabRequired, allow: toJson(next.allow), deny: toJson(next.deny), updated: new Date() };
  const updated = () => ({
    type: 'acme.policy.updated' as const,
    caId,
    data: { eab_required: next.eabRequired, allow: next.allow, deny: next.deny },
  });
  if (!current) {
    const inserted = (await db(acmePolicies)
      .insert({ ca_id: caId, ...columns })
      .onConflict('ca_id')
      .ignore()
      .returning('ca_id')) as Row[];
    if (inserted.length) {
      record(updated());
      return next;
    }
    // Another transaction made this CA's policy meanwhile: this write changes it.
  }
  const changed = await updateComparing(db, acmePolicies, { ca_id: caId }, columns, {
    allows: `n.eab_required IS DISTINCT FROM o.eab_required OR n.allow::text IS DISTINCT FROM o.allow::text
             OR n.deny::text IS DISTINCT FROM o.deny::text`,
  });
  if (changed?.change.allows) record(updated());
  return next;
}

function eabFromRow(row: Row): AcmeEabKeyRecord {
  return {
    kid: String(row.kid),
    caId: toNumber(row.ca_id),
    sealed: fromJson<unknown>(row.sealed),
    accountId: toNullableNumber(row.account_id),
    created: toDate(row.created),
  };
}

export async function createEabKey(
  db: Knex,
  key: { kid: string; caId: number; sealed: unknown },
  record: RecordEvents,
): Promise<AcmeEabKeyRecord> {
  const [row] = (await db(acmeEabKeys)
    .insert({ kid: key.kid, ca_id: key.caId, sealed: toJson(key.sealed), created: new Date() })
    .returning('*')) as Row[];
  const created = eabFromRow(row);
  record({ type: 'acme.eab_key.created', caId: created.caId, data: { kid: created.kid } });
  return created;
}

export async function findEabKey(db: Knex, caId: number, kid: string): Promise<AcmeEabKeyRecord | null> {
  const row = (await db(acmeEabKeys).where({ ca_id: caId, kid }).first()) as Row | undefined;
  return row ? eabFromRow(row) : null;
}

/** Call inside the transaction that created the account: false when the key is unknown or already bound. */
export async function bindEabKey(db: Knex, caId: number, kid: string, accountId: number): Promise<boolean> {
  const moved = await db(acmeEabKeys).where({ ca_id: caId, kid }).whereNull('account_id').update({ account_id: accountId });
  return moved === 1;
}
