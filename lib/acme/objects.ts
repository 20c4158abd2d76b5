/**
 * The JSON of ACME's resources (RFC 8555 §7.1.2–§7.1.5), from the store's records. Unlike the
 * original, every order carries `finalize` and its `error`, and lists all its authorizations, in
 * every state (docs/guides/acme.md, differences).
 */
import type { AcmeAccountRecord, AcmeAuthorizationRecord, AcmeChallengeRecord, AcmeOrderRecord } from '../ports';
import type { AcmeUrls } from './urls';

/** RFC 3339 in UTC, whole seconds (what clients parse most reliably). */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function accountJson(account: AcmeAccountRecord, urls: AcmeUrls): Record<string, unknown> {
  return {
    status: account.status,
    contact: account.contact,
    termsOfServiceAgreed: account.termsOfServiceAgreed,
    orders: urls.accountOrders(account.slug),
  };
}

export function orderJson(order: AcmeOrderRecord, urls: AcmeUrls): Record<string, unknown> {
  const json: Record<string, unknown> = {
    status: order.status,
    expires: timestamp(order.expires),
    identifiers: order.identifiers,
  };
  if (order.notBefore) json.notBefore = timestamp(order.notBefore);
  if (order.notAfter) json.notAfter = timestamp(order.notAfter);
  json.authorizations = order.authorizations.map((slug) => urls.authorization(slug));
  json.finalize = urls.finalize(order.slug);
  if (order.status === 'valid' && order.certificateId !== null) json.certificate = urls.certificate(order.slug);
  if (order.error) json.error = order.error;
  return json;
}

export function challengeJson(challenge: AcmeChallengeRecord, urls: AcmeUrls): Record<string, unknown> {
  const json: Record<string, unknown> = {
    type: challenge.type,
    url: urls.challenge(challenge.slug),
    status: challenge.status,
    token: challenge.token,
  };
  if (challenge.validated) json.validated = timestamp(challenge.validated);
  if (challenge.error) json.error = challenge.error;
  return json;
}

export function authorizationJson(authz: AcmeAuthorizationRecord, urls: AcmeUrls): Record<string, unknown> {
  // RFC 8555 §7.1.4: once valid, only the challenge that validated it need be listed.
  const shown = authz.status === 'valid' ? authz.challenges.filter((c) => c.status === 'valid') : authz.challenges;
  const json: Record<string, unknown> = {
    identifier: authz.identifier,
    status: authz.status,
    expires: timestamp(authz.expires),
    challenges: shown.map((c) => challengeJson(c, urls)),
  };
  if (authz.wildcard) json.wildcard = true;
  return json;
}
