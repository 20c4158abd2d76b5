/**
 * The admin interface's pages and actions, as data (docs/guides/admin-interface.md): method, path under the
 * interface's prefix, who may reach it, whether it needs a recent step-up, handler. Permissions are
 * checked by the handlers, per CA; the step-up by mount.ts, for every route marked here.
 */
import type { ParamKinds } from '../http/path-matcher';
import type { AdminContext, AdminRoute, SignedInContext } from './context';
import type { QuerySpec } from './query-check';
import { serveCsrFileScript, serveStylesheet } from './handlers/assets';
import { downloadCertificate, showCertificate } from './handlers/certificate';
import { listCertificates } from './handlers/certificates';
import { exportCertificates } from './handlers/export';
import { deactivateAcmeAccount, showAcmeAccount, showAcmeAccounts } from './handlers/acme';
import { showAuditLog, verifyAuditLog } from './handlers/audit';
import { INTENTS_QUERY, showIntents } from './handlers/intents';
import { showCa, updateCa } from './handlers/ca';
import { downloadCa } from './handlers/ca-downloads';
import { revokeCaAction, showRevokeCa } from './handlers/ca-revoke';
import { createEabKey } from './handlers/eab-keys';
import {
  addStoredEndpoint,
  removeStoredEndpoint,
  showStoredEndpoint,
  showStoredEndpoints,
  saveStoredEndpoint,
} from './handlers/enrolment-endpoints';
import { approve, refuse, showEnrolmentRequests } from './handlers/enrolment-requests';
import { resign, showResign } from './handlers/resign';
import { showDashboard } from './handlers/dashboard';
import { issue, showIssue } from './handlers/issue';
import { login, logout, showLogin } from './handlers/login';
import { showProfiles } from './handlers/profiles';
import { reauthenticate, showReauthenticate } from './handlers/reauth';
import { revoke, showRevoke } from './handlers/revoke';
import { addEndpoint, removeEndpoint, replay, rotateSecret, showDeadLetters, showWebhooks } from './handlers/webhooks';
import { createUser, deleteUser, showUser, showUsers, updatePassword, updatePermissions } from './handlers/users';

export const ADMIN_PATH_PARAMS: ParamKinds = {
  ca: { pattern: '[0-9A-Fa-f:]{1,64}' },
  serial: { pattern: '[0-9A-Fa-f:]{1,64}' },
  slug: { pattern: '[A-Za-z0-9_-]{1,64}' },
  id: { pattern: '[0-9]{1,9}' },
  username: { pattern: '[\\w.@+-]{1,150}' },
  protocol: { pattern: '(?:est|scep)' },
  label: { pattern: '[A-Za-z0-9_.-]{1,64}' },
};

/** The certificate list's and its export's query (handlers/certificates.ts, readListQuery). */
const LIST_QUERY: QuerySpec = { days: 'days', after: 'id' };

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
/**
 * A sensitive action: the password typed within `session.stepUpMs`, else re-authentication first and
 * then back to `formPage`, the page its form is on (default: its own path).
 */
const sensitive = (path: string, handler: (ctx: SignedInContext) => Promise<void>, formPage = path): AdminRoute => ({
  ...action(path, handler),
  stepUp: { formPage },
});

export const ADMIN_ROUTES: readonly AdminRoute[] = [
  page('', showDashboard),
  { method: 'GET', path: 'login', answersHead: true, access: 'public', handler: showLogin },
  { method: 'POST', path: 'login', access: 'public', handler: login },
  action('logout', logout),
  page('reauth', showReauthenticate),
  action('reauth', reauthenticate),
  { ...page('certs/', listCertificates), query: LIST_QUERY },
  { ...page('certs/export.csv', exportCertificates), query: LIST_QUERY },
  page('certs/{ca}/{serial}/', showCertificate),
  page('certs/{ca}/{serial}/download', downloadCertificate),
  // A form and nothing else: re-authenticating before it, not after, keeps the reason the user types.
  { ...page('certs/{ca}/{serial}/revoke', showRevoke), stepUp: { formPage: 'certs/{ca}/{serial}/revoke' } },
  sensitive('certs/{ca}/{serial}/revoke', revoke),
  page('issue', showIssue),
  { ...page('audit/', showAuditLog), query: { ca: 'serial', since: 'date', after: 'eventId', before: 'eventId' } },
  page('profiles/', showProfiles),
  action('audit/verify', verifyAuditLog),
  { ...page('signatures/', showIntents), query: INTENTS_QUERY },
  page('webhooks/', showWebhooks),
  sensitive('webhooks/', addEndpoint),
  page('webhooks/{id}/', showDeadLetters),
  sensitive('webhooks/{id}/rotate', rotateSecret, 'webhooks/'),
  sensitive('webhooks/{id}/replay', replay, 'webhooks/'),
  sensitive('webhooks/{id}/delete', removeEndpoint, 'webhooks/'),
  page('users/', showUsers),
  sensitive('users/', createUser),
  page('users/{username}/', showUser),
  sensitive('users/{username}/permissions', updatePermissions, 'users/{username}/'),
  sensitive('users/{username}/password', updatePassword, 'users/{username}/'),
  sensitive('users/{username}/delete', deleteUser, 'users/{username}/'),
  page('cas/{ca}/', showCa),
  sensitive('cas/{ca}/', updateCa),
  // As a certificate's: re-authenticating before the form keeps the reason the user types.
  { ...page('cas/{ca}/revoke', showRevokeCa), stepUp: { formPage: 'cas/{ca}/revoke' } },
  sensitive('cas/{ca}/revoke', revokeCaAction),
  page('cas/{ca}/acme/', showAcmeAccounts),
  sensitive('cas/{ca}/acme/{slug}/deactivate', deactivateAcmeAccount, 'cas/{ca}/acme/'),
  action('issue', issue),
  page('cas/{ca}/download', downloadCa),
  sensitive('cas/{ca}/eab-keys', createEabKey, 'cas/{ca}/'),
  page('cas/{ca}/enrolment-requests/', showEnrolmentRequests),
  sensitive('cas/{ca}/enrolment-requests/{id}/approve', approve, 'cas/{ca}/enrolment-requests/'),
  sensitive('cas/{ca}/enrolment-requests/{id}/refuse', refuse, 'cas/{ca}/enrolment-requests/'),
  page('cas/{ca}/enrolment-endpoints/', showStoredEndpoints),
  sensitive('cas/{ca}/enrolment-endpoints/', addStoredEndpoint),
  page('cas/{ca}/enrolment-endpoints/{protocol}/{label}/', showStoredEndpoint),
  sensitive('cas/{ca}/enrolment-endpoints/{protocol}/{label}/', saveStoredEndpoint),
  sensitive('cas/{ca}/enrolment-endpoints/{protocol}/{label}/delete', removeStoredEndpoint, 'cas/{ca}/enrolment-endpoints/'),
  page('certs/{ca}/{serial}/resign', showResign),
  action('certs/{ca}/{serial}/resign', resign),
  { method: 'GET', path: 'assets/admin.css', answersHead: true, access: 'asset', handler: serveStylesheet },
  { method: 'GET', path: 'assets/csr-file.js', answersHead: true, access: 'asset', handler: serveCsrFileScript },
  { ...page('cas/{ca}/acme/{slug}/', showAcmeAccount), query: { before: 'id' } },
];
