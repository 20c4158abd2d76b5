/**
 * Which certificate authorities an API endpoint may see (docs/COMPATIBILITY.md §1.6; the visibility matrix of
 * the original API).
 *
 * Every CA-scoped endpoint needs an enabled, API-enabled CA; sign, resign and revoke also need it to
 * be inside its validity window (lib/ca/validity.ts). The CA's revocation status is not looked at, as
 * upstream. A CA that is not visible is "not found", exactly like one that does not exist, so that a
 * client cannot tell them apart.
 */
import type { CaRecord, Store } from '../ports';
import { notFoundError } from './errors';
import { isWithinValidity } from './validity';

export interface VisibilityRules {
  /** Accept CAs outside their validity window (view, update, list certs, view cert). */
  allowExpired: boolean;
}

/** The CA named by a sanitised path serial, or CaError('not-found'). */
export async function visibleCa(cas: Pick<Store, 'findCaBySerial'>, serial: string, now: Date, rules: VisibilityRules): Promise<CaRecord> {
  const ca = await cas.findCaBySerial(serial);
  if (!ca || !ca.enabled || !ca.apiEnabled) throw notFoundError();
  if (!rules.allowExpired && !isWithinValidity(ca, now)) throw notFoundError();
  return ca;
}

export interface VisibleCaListOptions {
  /** Also CAs outside their validity window (`?expired=true`). */
  includeExpired: boolean;
  now: Date;
  /** Keyset paging (README D14): ids greater than this, at most `limit` rows. */
  afterId?: number;
  limit?: number;
}

/** `GET /ca/`: enabled, API-enabled CAs in ascending id order, valid now unless `includeExpired`. */
export async function listVisibleCas(store: Pick<Store, 'listCas'>, o: VisibleCaListOptions): Promise<CaRecord[]> {
  const all = await store.listCas({ enabled: true, apiEnabled: true, ...(o.includeExpired ? {} : { validAt: o.now }) });
  // CA lists are operator-sized: page in memory rather than widening the Store port.
  const after = o.afterId;
  const rows = after === undefined ? all : all.filter((ca) => ca.id > after);
  return o.limit === undefined ? rows : rows.slice(0, o.limit);
}
