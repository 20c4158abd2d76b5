/**
 * The CA a revocation endpoint names, or a JSON 404 (the original answers 500 for an unknown CA;
 * docs/guides/revocation.md).
 */
import { notFound } from '../http/http-errors';
import type { CaRecord } from '../ports';
import type { RevocationServices } from './route-types';

export async function caBySerial(services: RevocationServices, serial: string): Promise<CaRecord> {
  const found = await services.cas.findCaBySerial(serial);
  if (!found) throw notFound();
  return found;
}
