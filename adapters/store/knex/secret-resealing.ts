/**
 * The sealed secrets the store keeps — webhook endpoints' signing secrets and ACME external account
 * binding keys, `SecretBox` envelopes under the key-encryption key — handed to a KEK rotation's
 * `reseal` in the rotation's own transaction (key-rotation.ts), so that they move to the new KEK
 * together with the CA keys instead of being left unopenable.
 *
 * A re-sealed webhook secret is the same secret: no `webhook.secret_rotated` event is written for it
 * (that is written by `setWebhookSecret`, webhooks.ts, alone); the rotation's `kek.rotated` counts it.
 */
import type { Knex } from 'knex';
import type { SealedSecretReference } from '../../../lib/ports';
import { TABLES } from './tables';
import { fromJson, toJson } from './values';

export type Reseal = (secret: SealedSecretReference) => unknown;

/** Where each kind of sealed secret is kept: its table, the column that names it, the sealed column. */
const SEALED: readonly { kind: SealedSecretReference['kind']; table: string; id: string; column: string }[] = [
  { kind: 'webhook', table: TABLES.webhookEndpoints, id: 'id', column: 'secret' },
  { kind: 'acme_eab', table: TABLES.acmeEabKeys, id: 'kid', column: 'sealed' },
];

/** Must run inside a transaction; returns the references of the secrets it changed. */
export async function resealSecrets(db: Knex, reseal: Reseal): Promise<SealedSecretReference[]> {
  const changed: SealedSecretReference[] = [];
  for (const { kind, table, id, column } of SEALED) {
    const rows = (await db(table).select(id, column).orderBy(id, 'asc').forUpdate()) as Record<string, unknown>[];
    for (const row of rows) {
      const ref: SealedSecretReference = { kind, id: String(row[id]), sealed: fromJson<unknown>(row[column]) };
      const next = await reseal(ref);
      if (next === null || next === undefined) continue;
      await db(table)
        .where({ [id]: row[id] })
        .update({ [column]: toJson(next) });
      changed.push(ref);
    }
  }
  return changed;
}
