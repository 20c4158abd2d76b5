/**
 * Which CAs serve ACME (docs/guides/acme.md): `acme_enabled`, enabled, not revoked and currently valid — the
 * original also serves revoked CAs; we do not. An unknown or unusable CA is a 404 `not-found` problem,
 * as the original answers.
 */
import type { CaCache } from '../cache/ca-cache';
import { latestExpiringCa } from '../ca/default-ca';
import { isUsable } from '../ca/lookup';
import type { CaRecord, Store } from '../ports';
import { normaliseSerial } from '../x509/serial-format';
import { notFound } from './problems';

export function servesAcme(ca: CaRecord, now: Date): boolean {
  return ca.acmeEnabled && isUsable(ca, now);
}

export async function acmeCa(cas: CaCache, serial: string, now: Date): Promise<CaRecord> {
  const ca = await cas.findCaBySerial(serial);
  if (!ca || !servesAcme(ca, now)) throw notFound(`${serial}: CA not found.`);
  return ca;
}

/**
 * The CA behind `directory/`: the CA `defaultCa` (`CA_DEFAULT_CA`: serial or name) names if it serves
 * ACME, else the serving CA that expires last, ties broken by the lowest serial — the rule
 * `ca-admin sign_cert` follows too (lib/ca/default-ca.ts).
 */
export async function defaultAcmeCa(
  store: Pick<Store, 'listCas' | 'findCaByName'>,
  cas: CaCache,
  defaultCa: string | null,
  now: Date,
): Promise<CaRecord> {
  if (defaultCa !== null) {
    // By serial from the cache, else by name: one row, not the whole table, on every directory request.
    const serial = normaliseSerial(defaultCa);
    const bySerial = serial === null ? null : await cas.findCaBySerial(serial);
    const ca = bySerial ?? (await store.findCaByName(defaultCa));
    if (ca && servesAcme(ca, now)) return ca;
    throw notFound('No (usable) default CA configured.');
  }
  const chosen = latestExpiringCa((await store.listCas({ enabled: true, validAt: now })).filter((ca) => servesAcme(ca, now)));
  if (!chosen) throw notFound('No (usable) default CA configured.');
  return chosen;
}
