/**
 * Endpoints 3–5: list, view and update certificate authorities. Rules: lib/api/visibility.ts,
 * lib/ca/ca-update.ts (`updateCaFromBody`, on the CA this API sees).
 */
import { apiUserActor } from '../../ca/actors';
import { updateCaFromBody } from '../../ca/ca-update';
import { listVisibleCas, visibleCa } from '../visibility';
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

export const updateCertificateAuthority: ApiHandler = async (ctx) => {
  const { store } = ctx.services;
  const ca = await visibleCa(store, ctx.params.serial, ctx.now, { allowExpired: true });
  return ok(caToJson(await updateCaFromBody(store, ca, ctx.body ?? {}, apiUserActor(ctx.user, ctx.address))));
};
