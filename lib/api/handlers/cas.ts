/**
 * Endpoints 3–5: list, view and update certificate authorities. Rules: lib/ca/visibility.ts,
 * lib/ca/ca-update.ts.
 */
import { apiUserActor } from '../../ca/actors';
import { updateCaFromApi } from '../../ca/ca-update';
import { listVisibleCas, visibleCa } from '../../ca/visibility';
import { caToJson } from '../serialize';
import { ok } from '../json';
import { pageRequest, paginate, pageQuery } from '../pagination';
import type { ApiHandler } from '../route-types';

export const listCertificateAuthorities: ApiHandler = async (ctx, req) => {
  const page = pageRequest(ctx.query);
  const rows = await listVisibleCas(ctx.services.store, {
    includeExpired: ctx.query.expired === true,
    now: ctx.now,
    ...pageQuery(page),
    viewer: { user: ctx.user, permissions: ctx.services.permissions },
  });
  const { items, headers } = paginate(rows, page, req);
  return ok(items.map(caToJson), headers);
};

export const viewCertificateAuthority: ApiHandler = async (ctx) =>
  ok(caToJson(await visibleCa(ctx.services.cas, ctx.params.serial, ctx.now, { allowExpired: true })));

export const updateCertificateAuthority: ApiHandler = async (ctx) =>
  ok(caToJson(await updateCaFromApi(ctx.services.store, ctx.params.serial, ctx.body ?? {}, ctx.now, apiUserActor(ctx.user, ctx.address))));
