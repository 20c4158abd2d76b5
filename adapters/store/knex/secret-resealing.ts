/**
 * The sealed secrets the store keeps — webhook endpoints' signing secrets and ACME external account
 * binding keys, `SecretBox` envelopes under the key-encryption key — handed to a KEK rotation's
 * `reseal` in the rotation's own transaction (key-rotation.ts), so that they move to the new KEK
 * together with the CA keys instead of being left unopenable.
 *
 * A re-sealed webhook secret is the same secret: the transaction says so (`ca_api.kek_rotation`, read
 * by the trigger of migration 0013), and no `webhook.secret_rotated` event is written for it.
 */
import type { Knex } from 'knex';
import type { SealedSecretReference } from '../../../lib/ports';
import { TABLES } from './tables';
import { fromJson, toJson } from './values';

export type Reseal = (secret: SealedSecretReference) => unknown;

/** Must run inside a transaction; returns the references of the secrets it changed. */
export async function resealSecrets(db: Knex, reseal: Reseal): Promise<SealedSecretReference[]> {
  // Local to the transaction: the rotation's rewrites only, never another session's.
  await db.raw(`SELECT set_config('ca_api.kek_rotation', 'on', true)`);
  const changed: SealedSecretReference[] = [];
  const webhooks = (await db(TABLES.webhookEndpoints).select('id', 'secret').orderBy('id', 'asc').forUpdate()) as {
    id: unknown;
    secret: unknown;
  }[];
  for (const row of webhooks) {
    const ref: SealedSecretReference = { kind: 'webhook', id: String(row.id), sealed: fromJson<unknown>(row.secret) };
    const next = await reseal(ref);
    if (next === null || next === undefined) continue;
    await db(TABLES.webhookEndpoints)
      .where({ id: row.id })
      .update({ secret: toJson(next) });
    changed.push(ref);
  }
  const bindings = (await db(TABLES.acmeEabKeys).select('kid', 'sealed').orderBy('kid', 'asc').forUpdate()) as {
    kid: string;
    sealed: unknown;
  }[];
  for (const row of bindings) {
    const ref: SealedSecretReference = { kind: 'acme_eab', id: row.kid, sealed: fromJson<unknown>(row.sealed) };
    const next = await reseal(ref);
    if (next === null || next === undefined) continue;
    await db(TABLES.acmeEabKeys)
      .where({ kid: row.kid })
      .update({ sealed: toJson(next) });
    changed.push(ref);
  }
  return changed;
}
