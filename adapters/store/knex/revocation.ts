/**
 * Queries of the `RevocationStore` capability (lib/ports): revoked certificates for CRLs, CRL
 * Numbers, the revocation version of a CA, and the CA's OCSP responder. Migration 0002 explains the
 * columns, the partial indexes and the triggers behind them.
 */
import type { Knex } from 'knex';
import type { CrlScope, OcspResponderRecord, RevokedCertificate } from '../../../lib/ports';
import { crlPublished } from './event-data';
import { TABLES } from './tables';
import type { RecordEvents } from './transaction-events';
import { toDate, toNullableDate } from './values';

export const CRL_NUMBERS_TABLE = 'ca_api_crl_numbers';

export async function listRevoked(
  db: Knex,
  caId: number,
  scope: CrlScope,
  window: { from: Date; to: Date },
): Promise<RevokedCertificate[]> {
  const rows: Record<string, unknown>[] =
    scope === 'user'
      ? await db(TABLES.certificates)
          .select('serial', 'revoked_date', 'revoked_reason', 'compromised')
          .where({ ca_id: caId, revoked: true })
          .andWhere('not_before', '<', window.to)
          .andWhere('not_after', '>', window.from)
          .orderBy('id')
      : await db(TABLES.cas)
          .select('serial', 'revoked_date', 'revoked_reason', 'compromised')
          .where({ parent_id: caId, revoked: true })
          .andWhere('not_before', '<', window.to)
          .andWhere('not_after', '>', window.from)
          .orderBy('id');
  return rows.map((r) => ({
    serial: String(r.serial),
    revokedDate: toDate(r.revoked_date),
    revokedReason: String(r.revoked_reason ?? ''),
    compromised: toNullableDate(r.compromised),
  }));
}

/** The next CRL Number of the CA and scope; `crl.published` recorded. */
export async function nextCrlNumber(
  db: Knex,
  caId: number,
  scope: CrlScope | 'all',
  record: RecordEvents,
  atLeast: bigint = 1n,
): Promise<bigint> {
  // The floor is bound as text: a bigint parameter would not survive every driver as a number.
  const floor = (atLeast > 1n ? atLeast : 1n).toString();
  const result = await db.raw(
    `INSERT INTO ${CRL_NUMBERS_TABLE} (ca_id, scope, last_number) VALUES (?, ?, ?::bigint)
     ON CONFLICT (ca_id, scope) DO UPDATE SET last_number = GREATEST(${CRL_NUMBERS_TABLE}.last_number + 1, EXCLUDED.last_number)
     RETURNING last_number`,
    [caId, scope, floor],
  );
  const rows = (result as { rows: { last_number: string | number | bigint }[] }).rows;
  const drawn = BigInt(rows[0].last_number);
  record(crlPublished(caId, scope, drawn));
  return drawn;
}

export async function revocationVersion(db: Knex, caId: number): Promise<number> {
  const row = (await db(TABLES.cas).select('revocation_version').where({ id: caId }).first()) as
    { revocation_version: string | number } | undefined;
  return row ? Number(row.revocation_version) : 0;
}

export async function getOcspResponder(db: Knex, caId: number): Promise<OcspResponderRecord | null> {
  const row = (await db(TABLES.cas).select('ocsp_key_backend_options').where({ id: caId }).first()) as
    { ocsp_key_backend_options: unknown } | undefined;
  let value = row?.ocsp_key_backend_options;
  if (typeof value === 'string') value = JSON.parse(value) as unknown;
  const v = value as { key_backend_options?: unknown; certificate_serial?: unknown } | null | undefined;
  if (!v || typeof v.certificate_serial !== 'string' || typeof v.key_backend_options !== 'object' || v.key_backend_options === null)
    return null;
  return { keyBackendOptions: v.key_backend_options as Record<string, unknown>, certificateSerial: v.certificate_serial };
}

export async function setOcspResponder(db: Knex, caId: number, responder: OcspResponderRecord): Promise<void> {
  await db(TABLES.cas)
    .where({ id: caId })
    .update({
      ocsp_key_backend_options: JSON.stringify({
        key_backend_options: responder.keyBackendOptions,
        certificate_serial: responder.certificateSerial,
      }),
    });
}
