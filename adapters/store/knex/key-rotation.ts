/**
 * `StoredKeyRewriting` (lib/ports/key-rotation.ts) on `ca_api_certificate_authorities`: every key of
 * one backend that a CA row refers to — the CA's own (`key_backend_options`, in `key_backend_alias`)
 * and its OCSP responder's (`ocsp_key_backend_options.key_backend_options`, in
 * `ocsp_key_backend_alias`: a CA with its key in an HSM may keep its responder keys here) —
 * rewritten in the caller's transaction, which the store opens.
 *
 * And the keys CAs delegate work to (`ca_api_delegate_keys`, migration 0018: the SCEP RA's) that
 * this backend holds. With `reseal`, the sealed secrets too (secret-resealing.ts).
 *
 * The rows are locked first (`FOR UPDATE`) so that nothing changes a key between reading and writing
 * it. `updated` is left alone: the CA as the API shows it did not change, only how its key is wrapped.
 */
import type { Knex } from 'knex';
import type { StoredKeyReference, StoredKeyRewriting } from '../../../lib/ports';
import { resealSecrets, type Reseal } from './secret-resealing';
import { TABLES } from './tables';
import type { RecordEvents } from './transaction-events';
import { fromNullableJson, toNullableJson, toNumber } from './values';

type Rewrite = Parameters<StoredKeyRewriting['rewriteStoredKeys']>[1];

interface KeyRow {
  id: unknown;
  name: string;
  serial: string;
  key_backend_alias: string;
  key_backend_options: unknown;
  ocsp_key_backend_alias: string;
  ocsp_key_backend_options: unknown;
}

/** The stored OCSP responder: `{ key_backend_options, certificate_serial }` (see revocation.ts). */
interface OcspResponderColumn {
  key_backend_options?: unknown;
  [field: string]: unknown;
}

function isOptions(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Must run inside a transaction; returns how many keys it rewrote and the ids of the CA rows it changed.
 * A rotation that rewrote keys is recorded in the same transaction (`kek.rotated`, one event for the
 * whole rotation: the CA rows and re-sealed secrets it changed make no event of their own), with
 * `about` (the KEKs' public identifiers) and the CAs' serials — never a key.
 */
export async function rewriteStoredKeys(
  db: Knex,
  alias: string,
  rewrite: Rewrite,
  record: RecordEvents,
  about: Record<string, string> = {},
  reseal?: Reseal,
): Promise<{ keys: number; caIds: number[] }> {
  const rows = (await db(TABLES.cas)
    .select('id', 'name', 'serial', 'key_backend_alias', 'key_backend_options', 'ocsp_key_backend_alias', 'ocsp_key_backend_options')
    .where({ key_backend_alias: alias })
    .orWhere({ ocsp_key_backend_alias: alias })
    .orderBy('id', 'asc')
    .forUpdate()) as KeyRow[];
  const changed: number[] = [];
  const serials: string[] = [];
  let keys = 0;
  for (const row of rows) {
    const ref = (kind: StoredKeyReference['kind'], options: Record<string, unknown>): StoredKeyReference => ({
      caId: toNumber(row.id),
      caName: row.name,
      caSerial: row.serial,
      kind,
      options,
    });
    const update: Record<string, string | null> = {};

    const own = row.key_backend_alias === alias ? fromNullableJson<unknown>(row.key_backend_options) : null;
    if (isOptions(own)) {
      const next = await rewrite(ref('ca', own));
      if (next) update.key_backend_options = toNullableJson(next);
    }

    const responder = row.ocsp_key_backend_alias === alias ? fromNullableJson<OcspResponderColumn>(row.ocsp_key_backend_options) : null;
    if (isOptions(responder) && isOptions(responder.key_backend_options)) {
      const next = await rewrite(ref('ocsp', responder.key_backend_options));
      if (next) update.ocsp_key_backend_options = toNullableJson({ ...responder, key_backend_options: next });
    }

    const columns = Object.keys(update).length;
    if (columns) {
      await db(TABLES.cas).where({ id: row.id }).update(update);
      changed.push(toNumber(row.id));
      keys += columns;
      serials.push(row.serial);
    }
  }
  keys += await rewriteDelegateKeys(db, alias, rewrite, serials);
  const secrets = reseal ? await resealSecrets(db, reseal) : [];
  if (keys || secrets.length) {
    const ids = (kind: string) => secrets.filter((s) => s.kind === kind).map((s) => s.id);
    const resealed = secrets.length ? { secrets: secrets.length, webhooks: ids('webhook'), acme_eab_keys: ids('acme_eab') } : {};
    record({ type: 'kek.rotated', data: { ...about, key_backend: alias, keys, cas: serials, ...resealed } });
  }
  return { keys, caIds: changed };
}

/** The delegate keys of backend `alias` rewritten; their CAs' serials added to `serials`. */
async function rewriteDelegateKeys(db: Knex, alias: string, rewrite: Rewrite, serials: string[]): Promise<number> {
  const rows = (await db(`${TABLES.delegateKeys} as d`)
    .join(`${TABLES.cas} as c`, 'c.id', 'd.ca_id')
    .select('d.ca_id', 'd.purpose', 'd.key_backend_options', 'c.name', 'c.serial')
    .where('d.key_backend_alias', alias)
    .orderBy([{ column: 'd.ca_id' }, { column: 'd.purpose' }])
    .forUpdate('d')) as { ca_id: unknown; purpose: string; key_backend_options: unknown; name: string; serial: string }[];
  let keys = 0;
  for (const row of rows) {
    const options = fromNullableJson<unknown>(row.key_backend_options);
    if (!isOptions(options) || row.purpose !== 'scep_ra') continue;
    const next = await rewrite({ caId: toNumber(row.ca_id), caName: row.name, caSerial: row.serial, kind: 'scep_ra', options });
    if (!next) continue;
    await db(TABLES.delegateKeys)
      .where({ ca_id: row.ca_id, purpose: row.purpose })
      .update({ key_backend_options: toNullableJson(next) });
    keys++;
    if (!serials.includes(row.serial)) serials.push(row.serial);
  }
  return keys;
}
