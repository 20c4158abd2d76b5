/**
 * Who may see and do what, page by page and action by action (docs/guides/admin-interface.md): the REST
 * API's five permissions and per-CA grants (docs/reference/differences.md D23), asked of the same `PermissionChecker`. A
 * CA-scoped page checks the grant for that CA before anything is looked up, so a user without it
 * gets 403 whether or not the CA exists (as the REST API answers). Lists show only permitted CAs.
 */
import { HttpError } from '../http/http-errors';
import { sanitizeSerial } from '../http/path-matcher';
import type { Actor, ApiUser, CaRecord, Permission } from '../ports';
import type { SignedInContext } from './context';

export const forbiddenPage = (): HttpError => new HttpError(403, 'You do not have the permission for this page or action.');
export const notFoundPage = (what: string): HttpError => new HttpError(404, `${what} was not found.`);

const apiUser = (ctx: SignedInContext): ApiUser => ({ id: ctx.session.user.id, username: ctx.session.user.username });

export function may(ctx: SignedInContext, permission: Permission, caSerial: string): Promise<boolean> {
  return ctx.services.permissions.hasPermission(apiUser(ctx), permission, { caSerial });
}

/** Whether the user holds a global permission of the interface (`view_auditlog`, `manage_webhooks`, `manage_users`); 403 if not. */
export async function requireGlobal(ctx: SignedInContext, permission: Permission): Promise<void> {
  if (!(await holdsGlobal(ctx, permission))) throw forbiddenPage();
}

/** Whether the user holds a global permission of the interface, for what a page shows only to some (the dashboard's recent events, a certificate's history). */
export function holdsGlobal(ctx: SignedInContext, permission: Permission): Promise<boolean> {
  return ctx.services.permissions.hasPermission(apiUser(ctx), permission);
}

/** Who the interface's writes name in the audit log: the signed-in user, over `admin`, from their address. */
export function adminActor(ctx: SignedInContext): Actor {
  const { user } = ctx.session;
  return { type: 'api_user', id: user.id, name: user.username, protocol: 'admin', address: ctx.req.ip ?? null };
}

/** The CA named by a path's serial, when the user holds `permission` for it; 403 before 404. */
export async function caFor(ctx: SignedInContext, permission: Permission, rawSerial: string): Promise<CaRecord> {
  const serial = sanitizeSerial(rawSerial);
  if (!(await may(ctx, permission, serial))) throw forbiddenPage();
  const ca = await ctx.services.store.findCaBySerial(serial);
  if (!ca) throw notFoundPage('The certificate authority');
  return ca;
}

/** Every CA for which the user holds `permission`, in the store's order. */
export async function casWith(ctx: SignedInContext, permission: Permission): Promise<CaRecord[]> {
  const { permissions, store } = ctx.services;
  const cas = await store.listCas();
  if (permissions.caSerialsFor) {
    const allowed = await permissions.caSerialsFor(apiUser(ctx), permission);
    return allowed === 'all' ? cas : cas.filter((ca) => allowed.has(ca.serial));
  }
  const held = await Promise.all(cas.map((ca) => may(ctx, permission, ca.serial)));
  return cas.filter((_, i) => held[i]);
}
