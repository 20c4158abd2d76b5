/** `DelegateKeyStore` (lib/ports/delegate-keys.ts) on `ca_api_delegate_keys` (migration 0018). */
import type { Knex } from 'knex';
import type { DelegateKeyRecord, DelegatePurpose } from '../../../lib/ports';
import { TABLES } from './tables';
import { fromJson, toJson } from './values';

export async function getDelegateKey(db: Knex, caId: number, purpose: DelegatePurpose): Promise<DelegateKeyRecord | null> {
  const row = (await db(TABLES.delegateKeys)
    .select('key_backend_alias', 'key_backend_options', 'certificate_serial')
    .where({ ca_id: caId, purpose })
    .first()) as { key_backend_alias: string; key_backend_options: unknown; certificate_serial: string } | undefined;
  if (!row) return null;
  return {
    keyBackendAlias: row.key_backend_alias,
    keyBackendOptions: fromJson<Record<string, unknown>>(row.key_backend_options),
    certificateSerial: row.certificate_serial,
  };
}

export async function setDelegateKey(db: Knex, caId: number, purpose: DelegatePurpose, record: DelegateKeyRecord): Promise<void> {
  await db(TABLES.delegateKeys)
    .insert({
      ca_id: caId,
      purpose,
      key_backend_alias: record.keyBackendAlias,
      key_backend_options: toJson(record.keyBackendOptions),
      certificate_serial: record.certificateSerial,
    })
    .onConflict(['ca_id', 'purpose'])
    .merge(['key_backend_alias', 'key_backend_options', 'certificate_serial']);
}
