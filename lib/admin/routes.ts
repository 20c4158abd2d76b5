/**
 * The admin interface's pages and actions, as data (README "Admin interface"): method, path under the
 * interface's prefix, who may reach it, handler. Permissions are checked by the handlers, per CA.
 */
import type { ParamKinds } from '../http/path-matcher';
import type { AdminContext, AdminRoute, SignedInContext } from './context';
import { serveStylesheet } from './handlers/assets';
import { downloadCertificate, showCertificate } from './handlers/certificate';
import { listCertificates } from './handlers/certificates';
import { exportCertificates } from './handlers/export';
import { deactivateAcmeAccount, showAcmeAccounts } from './handlers/acme';
import { showAuditLog, verifyAuditLog } from './handlers/audit';
import { showCa, updateCa } from './handlers/ca';
import { downloadCa } from './handlers/ca-downloads';
import { createEabKey } from './handlers/eab-keys';
import { resign, showResign } from './handlers/resign';
import { showDashboard } from './handlers/dashboard';
import { issue, showIssue } from './handlers/issue';
import { login, logout, showLogin } from './handlers/login';
import { revoke, showRevoke } from './handlers/revoke';
import { addEndpoint, removeEndpoint, replay, rotateSecret, showDeadLetters, showWebhooks } from './handlers/webhooks';
import { createUser, deleteUser, showUser, showUsers, updatePassword, updatePermissions } from './handlers/users';

export const ADMIN_PATH_PARAMS: ParamKinds = {
  ca: { pattern: '[0-9A-Fa-f:]{1,64}' },
  serial: { pattern: '[0-9A-Fa-f:]{1,64}' },
  slug: { pattern: '[A-Za-z0-9_-]{1,64}' },
  id: { pattern: '[0-9]{1,9}' },
  username: { pattern: '[\\w.@+-]{1,150}' },
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
  page('certs/export.csv', exportCertificates),
  page('certs/{ca}/{serial}/', showCertificate),
  page('certs/{ca}/{serial}/download', downloadCertificate),
  page('certs/{ca}/{serial}/revoke', showRevoke),
  action('certs/{ca}/{serial}/revoke', revoke),
  page('issue', showIssue),
  page('audit/', showAuditLog),
  action('audit/verify', verifyAuditLog),
  page('webhooks/', showWebhooks),
  action('webhooks/', addEndpoint),
  page('webhooks/{id}/', showDeadLetters),
  action('webhooks/{id}/rotate', rotateSecret),
  action('webhooks/{id}/replay', replay),
  action('webhooks/{id}/delete', removeEndpoint),
  page('users/', showUsers),
  action('users/', createUser),
  page('users/{username}/', showUser),
  action('users/{username}/permissions', updatePermissions),
  action('users/{username}/password', updatePassword),
  action('users/{username}/delete', deleteUser),
  page('cas/{ca}/', showCa),
  action('cas/{ca}/', updateCa),
  page('cas/{ca}/acme/', showAcmeAccounts),
  action('cas/{ca}/acme/{slug}/deactivate', deactivateAcmeAccount),
  action('issue', issue),
  page('cas/{ca}/download', downloadCa),
  action('cas/{ca}/eab-keys', createEabKey),
  page('certs/{ca}/{serial}/resign', showResign),
  action('certs/{ca}/{serial}/resign', resign),
  { method: 'GET', path: 'assets/admin.css', answersHead: true, access: 'asset', handler: serveStylesheet },
];
