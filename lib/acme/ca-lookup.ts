/**
 * Which CAs serve ACME (README "ACME"): `acme_enabled`, enabled, not revoked and currently valid — the
 * original also serves revoked CAs; we do not. An unknown or unusable CA is a 404 `not-found` problem,
 * as the original answers.
 */
import type { CaCache } from '../cache/ca-cache';
import { isUsable } from '../ca/lookup';
import type { CaRecord, Store } from '../ports';
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
 * The CA behind `directory/`: `defaultCa` (`CA_DEFAULT_CA`) if it serves ACME, else the serving CA
 * that expires last (ties: the lowest serial), as the original chooses.
 */
export async function defaultAcmeCa(store: Pick<Store, 'listCas'>, cas: CaCache, defaultCa: string | null, now: Date): Promise<CaRecord> {
  if (defaultCa !== null) {
    const ca = await cas.findCaBySerial(defaultCa);
    if (ca && servesAcme(ca, now)) return ca;
    throw notFound('No (usable) default CA configured.');
  }
  const candidates = (await store.listCas({ enabled: true, validAt: now })).filter((ca) => servesAcme(ca, now));
  candidates.sort((a, b) => b.notAfter.getTime() - a.notAfter.getTime() || compareSerials(a.serial, b.serial));
  if (candidates.length === 0) throw notFound('No (usable) default CA configured.');
  return candidates[0];
}

function compareSerials(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
