/**
 * Which certificate authorities an endpoint may see (reference/api.md §7, "visibility matrix").
 *
 * Every CA-scoped endpoint needs an enabled, API-enabled CA; sign, resign and revoke also need it to
 * be inside its validity window (`not_before < now <= not_after`). The CA's revocation status is not
 * looked at, as upstream. A CA that is not visible is a JSON 404, exactly like one that does not exist,
 * so that a client cannot tell them apart.
 */
import type { CaRecord, Store } from '../ports';
import { notFound } from './http-errors';

/** `not_before < now <= not_after`, the window the original's `.valid()` querysets use. */
export function isWithinValidity(record: { notBefore: Date; notAfter: Date }, now: Date): boolean {
  return record.notBefore < now && now <= record.notAfter;
}

export interface LookupRules {
  /** Accept CAs outside their validity window (view, update, list certs, view cert). */
  allowExpired: boolean;
}

/** The CA named by a sanitised path serial, or a JSON 404. */
export async function visibleCa(store: Pick<Store, 'findCaBySerial'>, serial: string, now: Date, rules: LookupRules): Promise<CaRecord> {
  const ca = await store.findCaBySerial(serial);
  if (!ca || !ca.enabled || !ca.apiEnabled) throw notFound();
  if (!rules.allowExpired && !isWithinValidity(ca, now)) throw notFound();
  return ca;
}
