/**
 * Endpoints 3–5: list, view and update certificate authorities (reference/api.md §7.3–§7.5).
 */
import { caToJson } from '../ca/serialize';
import { StoreConflictError } from '../ports';
import { caPatchFromBody } from './ca-update';
import { badRequest } from './http-errors';
import { ok } from './json';
import { pageRequest, paginate } from './pagination';
import type { ApiHandler } from './route-table';
import { visibleCa } from './visibility';

/**
 * Enabled, API-enabled CAs in ascending id order; only those inside their validity window unless
 * `?expired=true` (which adds expired and not-yet-valid ones).
 */
export const listCertificateAuthorities: ApiHandler = async (ctx, req) => {
  const page = pageRequest(ctx.query);
  const all = await ctx.store.listCas({
    enabled: true,
    apiEnabled: true,
    ...(ctx.query.expired === true ? {} : { validAt: ctx.now }),
  });
  // CA lists are operator-sized: page in memory rather than widening the Store port.
  const after = page.afterId;
  const rows = after === undefined ? all : all.filter((ca) => ca.id > after);
  const { items, headers } = paginate(page.limit === undefined ? rows : rows.slice(0, page.limit + 1), page, req);
  return ok(items.map(caToJson), headers);
};

export const viewCertificateAuthority: ApiHandler = async (ctx) => {
  const ca = await visibleCa(ctx.cas ?? ctx.store, ctx.params.serial, ctx.now, { allowExpired: true });
  return ok(caToJson(ca));
};

export const updateCertificateAuthority: ApiHandler = async (ctx) => {
  const ca = await visibleCa(ctx.store, ctx.params.serial, ctx.now, { allowExpired: true });
  const patch = await caPatchFromBody(ctx.store, ca, ctx.body ?? {});
  try {
    // An empty patch still saves (and bumps `updated`), as `PUT {}` does upstream.
    return ok(caToJson(await ctx.store.updateCa(ca.id, patch)));
  } catch (e) {
    // Another request took the name between our check and the write.
    if (e instanceof StoreConflictError && e.entity === 'ca') {
      throw badRequest("{'name': ['Certificate Authority with this Name already exists.']}");
    }
    throw e;
  }
};
