/**
 * Endpoints 6, 7 and 10: sign, get order, resign. Rules and order placement: lib/api/order-desk.ts.
 */
import { ownOrder, resignThroughOrder, signThroughOrder } from '../order-desk';
import { orderToJson } from '../serialize';
import { ok } from '../json';
import type { ApiHandler } from '../route-types';

export const signCertificate: ApiHandler = async (ctx) =>
  ok(
    orderToJson(
      await signThroughOrder(ctx.services, {
        caSerial: ctx.params.serial,
        user: ctx.user,
        address: ctx.address,
        body: ctx.body ?? {},
        now: ctx.now,
      }),
    ),
  );

export const getCertificateOrder: ApiHandler = async (ctx) =>
  ok(orderToJson(await ownOrder(ctx.services, ctx.params.serial, ctx.params.slug, ctx.user.id)));

export const resignCertificate: ApiHandler = async (ctx) =>
  ok(
    orderToJson(
      await resignThroughOrder(ctx.services, {
        caSerial: ctx.params.serial,
        certificateSerial: ctx.params.certificate_serial,
        user: ctx.user,
        address: ctx.address,
        body: ctx.body ?? {},
        now: ctx.now,
      }),
    ),
  );
