/**
 * Accounts (RFC 8555 §7.3): create or find one by its key, read and update it, deactivate it, list
 * its orders (paged, where the original answers 500).
 */
import { isJsonObject, ownMember } from '../encoding';
import { jwkThumbprint } from '../jwk';
import { accountJson } from '../objects';
import { accountDoesNotExist, externalAccountRequired, malformed, rateLimited, unauthorized, withRetryAfter } from '../problems';
import { checkedEabKid } from '../eab/check-binding';
import { parseContacts } from '../contacts';
import type { AcmeAnswer, AcmeCall } from '../route-types';
import type { AcmeAccountRecord } from '../../ports';

/** Orders per page of an account's `orders` list (RFC 8555 §7.1.2.1: `Link: rel="next"` beyond). */
export const ORDERS_PAGE_SIZE = 100;

function payloadObject(call: AcmeCall): Record<string, unknown> {
  const payload = call.jws?.payload;
  if (!isJsonObject(payload)) throw malformed('The payload must be a JSON object.');
  return payload;
}

/** newAccount (§7.3, §7.3.1). */
export async function newAccount(call: AcmeCall): Promise<AcmeAnswer> {
  const { ca, services, urls, jws, req } = call;
  if (!jws || jws.signer.kind !== 'jwk') throw malformed('Request requires a full JWK key.');
  const payload = payloadObject(call);
  const thumbprint = jwkThumbprint(jws.signer.jwk);
  const existing = await services.acme.findAccountByThumbprint(ca.id, thumbprint);
  if (existing) return { status: 200, body: accountJson(existing, urls), headers: { Location: urls.account(existing.slug) } };
  if (ownMember(payload, 'onlyReturnExisting') === true) throw accountDoesNotExist('Account does not exist.');
  if (!ca.acmeRegistration) throw unauthorized('Account registration is disabled.');
  const contact = parseContacts(ownMember(payload, 'contact'));
  if (ca.acmeRequiresContact && contact.length === 0) throw unauthorized('Must provide at least one contact address.');
  const agreed = ownMember(payload, 'termsOfServiceAgreed') === true;
  const binding = ownMember(payload, 'externalAccountBinding');
  let eabKid: string | null = null;
  if (binding !== undefined) {
    const context = { url: urls.newAccount, accountJwk: jws.signer.jwk, caId: ca.id, acme: services.acme, box: services.secrets };
    eabKid = await checkedEabKid(binding, context);
  } else if ((await services.policies.policy(ca.id)).eabRequired) {
    throw externalAccountRequired('This CA requires an external account binding (RFC 8555 §7.3.4).');
  }
  const limit = services.options.newAccountsPerAddress;
  const address = req.ip ?? null;
  if (limit && address) {
    const since = new Date(call.now.getTime() - limit.windowMs);
    if ((await services.acme.countAccountsFrom(address, since)) >= limit.limit) {
      throw withRetryAfter(rateLimited(`At most ${limit.limit} new accounts per address in ${limit.windowMs / 1000} s.`), limit.windowMs);
    }
  }
  const { account, created } = await services.acme.createAccount({
    caId: ca.id,
    jwk: jws.signer.jwk as unknown as Record<string, string>,
    thumbprint,
    contact,
    termsOfServiceAgreed: agreed,
    remoteAddress: address,
    eabKid,
  });
  return { status: created ? 201 : 200, body: accountJson(account, urls), headers: { Location: urls.account(account.slug) } };
}

function ownAccount(call: AcmeCall): AcmeAccountRecord {
  const account = call.account;
  if (!account || account.slug !== call.params.slug) throw unauthorized('Account slug does not match account that signed the request.');
  return account;
}

/** The account URL (§7.3.2, §7.3.6): POST-as-GET reads it; a payload updates contacts or deactivates it. */
export async function account(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, urls } = call;
  let current = ownAccount(call);
  if (call.jws && !call.jws.postAsGet) {
    const payload = payloadObject(call);
    const status = ownMember(payload, 'status');
    const contact = ownMember(payload, 'contact');
    const tos = ownMember(payload, 'termsOfServiceAgreed');
    if (status !== undefined && status !== 'deactivated' && status !== 'valid') {
      throw malformed('An account can only be deactivated ("status": "deactivated").');
    }
    const patch: { contact?: string[]; termsOfServiceAgreed?: boolean; status?: 'deactivated' } = {};
    if (contact !== undefined) patch.contact = parseContacts(contact);
    if (tos === true) patch.termsOfServiceAgreed = true;
    if (status === 'deactivated') patch.status = 'deactivated';
    if (Object.keys(patch).length > 0) current = await services.acme.updateAccount(current.id, patch);
  }
  return { status: 200, body: accountJson(current, urls), headers: { Location: urls.account(current.slug) } };
}

/** The account's `orders` (§7.1.2.1), newest first, `Link: rel="next"` to the next page. */
export async function accountOrders(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, urls, req } = call;
  const current = ownAccount(call);
  const before = typeof req.query.before === 'string' && /^\d{1,12}$/.test(req.query.before) ? Number(req.query.before) : undefined;
  const page = await services.acme.listOrders(current.id, { beforeId: before, limit: ORDERS_PAGE_SIZE });
  const links = page.nextBeforeId === null ? [] : [`<${urls.accountOrders(current.slug)}?before=${page.nextBeforeId}>;rel="next"`];
  return { status: 200, body: { orders: page.slugs.map((slug) => urls.order(slug)) }, links };
}
