/**
 * Which certificate authorities a REST API endpoint may see (docs/COMPATIBILITY.md §1.6; the visibility matrix of
 * the original API).
 *
 * Every CA-scoped endpoint needs an enabled, API-enabled CA; sign, resign and revoke also need it to
 * be inside its validity window (lib/ports/validity.ts). The CA's revocation status is not looked at, as
 * upstream. A CA that is not visible is "not found", exactly like one that does not exist, so that a
 * client cannot tell them apart.
 */
import type { ApiUser, CaRecord, PermissionChecker, Store } from '../ports';
import { notFoundError } from '../ca/errors';
import { isWithinValidity } from '../ports/validity';

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
  /** Keyset paging (docs/reference/differences.md D14): ids greater than this, at most `limit` rows. */
  afterId?: number;
  limit?: number;
  /**
   * Only the CAs this user holds `view_certificateauthority` for (per-CA grants, docs/reference/differences.md D23): the
   * others are left out as if they did not exist. Absent: every visible CA.
   */
  viewer?: { user: ApiUser; permissions: PermissionChecker };
}

/** `GET /ca/`: enabled, API-enabled CAs in ascending id order, valid now unless `includeExpired`. */
export async function listVisibleCas(store: Pick<Store, 'listCas'>, o: VisibleCaListOptions): Promise<CaRecord[]> {
  const all = await store.listCas({ enabled: true, apiEnabled: true, ...(o.includeExpired ? {} : { validAt: o.now }) });
  // CA lists are operator-sized: filter and page in memory rather than widening the Store port.
  const permitted = o.viewer ? await viewableBy(o.viewer.user, o.viewer.permissions, all) : all;
  const after = o.afterId;
  const rows = after === undefined ? permitted : permitted.filter((ca) => ca.id > after);
  return o.limit === undefined ? rows : rows.slice(0, o.limit);
}

/** The CAs of `cas` the user may view: one question to a checker with `caSerialsFor`, else one per CA. */
async function viewableBy(user: ApiUser, checker: PermissionChecker, cas: CaRecord[]): Promise<CaRecord[]> {
  const permission = 'view_certificateauthority';
  if (checker.caSerialsFor) {
    const serials = await checker.caSerialsFor(user, permission);
    return serials === 'all' ? cas : cas.filter((ca) => serials.has(ca.serial));
  }
  const allowed = await Promise.all(cas.map((ca) => checker.hasPermission(user, permission, { caSerial: ca.serial })));
  return cas.filter((_, i) => allowed[i]);
}
