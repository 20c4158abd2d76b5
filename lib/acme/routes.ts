/**
 * The ACME endpoints (RFC 8555 §7.1, in the original's URL layout; docs/guides/acme.md), as one table:
 * method, path relative to `/{urlPath}acme/`, who signs (POST), whether it is a POST-as-GET, and the
 * handler (lib/acme/handlers/) with the service it calls beside it. Every POST is checked by the
 * module before its handler runs (lib/acme/authenticate.ts).
 */
import { account, accountOrders, newAccount } from './handlers/accounts';
import { authorization, challenge } from './handlers/authorizations';
import { certificate } from './handlers/certificate';
import { caDirectory, defaultDirectory } from './handlers/directory';
import { keyChange } from './handlers/key-change';
import { getNonce, headNonce } from './handlers/nonce';
import { finalize, newOrder, order } from './handlers/orders';
import { renewalInfo } from './handlers/renewal-info';
import { revoke } from './handlers/revoke';
import type { AcmeRoute } from './route-types';

export const ACME_ROUTES: readonly AcmeRoute[] = [
  // The directory: of the default CA, and of one CA (RFC 8555 §7.1.1).
  { method: 'GET', path: '/directory/', answersHead: true, handler: defaultDirectory }, // → ca-lookup.ts defaultAcmeCa
  { method: 'GET', path: '/directory/{serial}/', answersHead: true, handler: caDirectory },
  // Nonces (§7.2): stored, so that any instance accepts them once (AcmeNonceStore).
  { method: 'HEAD', path: '/{serial}/new-nonce/', handler: headNonce },
  { method: 'GET', path: '/{serial}/new-nonce/', handler: getNonce },
  // Accounts (§7.3) → accounts.ts (registerAccount, updateAccount); key rollover → key-rollover.ts.
  { method: 'POST', path: '/{serial}/new-account/', signer: 'jwk', handler: newAccount },
  { method: 'POST', path: '/{serial}/acct/{slug}/', beforeTerms: true, readsOnPostAsGet: true, handler: account },
  { method: 'POST', path: '/{serial}/acct/{slug}/orders/', postAsGet: true, beforeTerms: true, handler: accountOrders },
  { method: 'POST', path: '/{serial}/key-change/', handler: keyChange },
  // Orders (§7.4) → orders.ts placeOrder; finalize → finalize.ts, issue.ts (lib/ca/issuance/issue.ts issue + keepWithAcmeOrder).
  { method: 'POST', path: '/{serial}/new-order/', handler: newOrder },
  { method: 'POST', path: '/{serial}/order/{slug}/', postAsGet: true, handler: order },
  { method: 'POST', path: '/{serial}/order/{slug}/finalize/', handler: finalize },
  // Authorizations and challenges (§7.5) → AcmeStore; a challenge's validation → challenges.ts, runner.ts.
  { method: 'POST', path: '/{serial}/authz/{slug}/', readsOnPostAsGet: true, handler: authorization },
  { method: 'POST', path: '/{serial}/chall/{slug}/', readsOnPostAsGet: true, handler: challenge },
  // The certificate chain (§7.4.2), revocation (§7.6) → revocation.ts (lib/ca/revocation.ts), renewal information
  // (RFC 9773) → renewal-window.ts.
  { method: 'POST', path: '/{serial}/cert/{slug}/', postAsGet: true, handler: certificate },
  { method: 'POST', path: '/{serial}/revoke/', signer: 'either', handler: revoke },
  { method: 'GET', path: '/{serial}/renewal-info/{cert_id}', answersHead: true, handler: renewalInfo },
];
