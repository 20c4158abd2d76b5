/**
 * The admin interface's pages and actions, as data (README "Admin interface"): method, path under the
 * interface's prefix, who may reach it, handler. Permissions are checked by the handlers, per CA.
 */
import type { ParamKinds } from '../http/path-matcher';
import type { AdminContext, AdminRoute, SignedInContext } from './context';
import { serveStylesheet } from './handlers/assets';
import { downloadCertificate, showCertificate } from './handlers/certificate';
import { listCertificates } from './handlers/certificates';
import { showDashboard } from './handlers/dashboard';
import { login, logout, showLogin } from './handlers/login';
import { revoke, showRevoke } from './handlers/revoke';

export const ADMIN_PATH_PARAMS: ParamKinds = {
  ca: { pattern: '[0-9A-Fa-f:]{1,64}' },
  serial: { pattern: '[0-9A-Fa-f:]{1,64}' },
};

const signedIn = (handler: (ctx: SignedInContext) => Promise<void>) => (ctx: AdminContext) => handler(ctx as SignedInContext);

const page = (path: string, handler: (ctx: SignedInContext) => Promise<void>): AdminRoute => ({
  method: 'GET',
  path,
  answersHead: true,
  access: 'session',
  handler: signedIn(handler),
});
const action = (path: string, handler: (ctx: SignedInContext) => Promise<void>): AdminRoute => ({
  method: 'POST',
  path,
  access: 'session',
  handler: signedIn(handler),
});

export const ADMIN_ROUTES: readonly AdminRoute[] = [
  page('', showDashboard),
  { method: 'GET', path: 'login', answersHead: true, access: 'public', handler: showLogin },
  { method: 'POST', path: 'login', access: 'public', handler: login },
  action('logout', logout),
  page('certs/', listCertificates),
  page('certs/{ca}/{serial}/', showCertificate),
  page('certs/{ca}/{serial}/download', downloadCertificate),
  page('certs/{ca}/{serial}/revoke', showRevoke),
  action('certs/{ca}/{serial}/revoke', revoke),
  { method: 'GET', path: 'assets/admin.css', answersHead: true, access: 'public', handler: serveStylesheet },
];
