/**
 * Accounts (RFC 8555 §7.3): create or find one by its key, read and update it, deactivate it, list
 * its orders (paged, where the original answers 500).
 */
import { isJsonObject, ownMember } from '../encoding';
import { registerAccount, updateAccount } from '../accounts';
import { accountJson } from '../objects';
import { malformed, unauthorized } from '../problems';
import type { AcmeAnswer, AcmeCall } from '../route-types';
import type { AcmeAccountRecord } from '../../ports';

/** Orders per page of an account's `orders` list (RFC 8555 §7.1.2.1: `Link: rel="next"` beyond). */
export const ORDERS_PAGE_SIZE = 100;

function payloadObject(call: AcmeCall): Record<string, unknown> {
  const payload = call.jws?.payload;
  if (!isJsonObject(payload)) throw malformed('The payload must be a JSON object.');
  return payload;
}

/** newAccount (§7.3, §7.3.1): the account of the key, found (200) or made (201). */
export async function newAccount(call: AcmeCall): Promise<AcmeAnswer> {
  const { ca, services, urls, jws, req } = call;
  if (!jws || jws.signer.kind !== 'jwk') throw malformed('Request requires a full JWK key.');
  const payload = payloadObject(call);
  const { account, created } = await registerAccount(
    services,
    ca,
    {
      jwk: jws.signer.jwk,
      onlyReturnExisting: ownMember(payload, 'onlyReturnExisting') === true,
      contact: ownMember(payload, 'contact'),
      termsOfServiceAgreed: ownMember(payload, 'termsOfServiceAgreed') === true,
      binding: ownMember(payload, 'externalAccountBinding'),
      newAccountUrl: urls.newAccount,
      address: req.ip ?? null,
    },
    call.now,
  );
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
    const change = {
      status: ownMember(payload, 'status'),
      contact: ownMember(payload, 'contact'),
      termsOfServiceAgreed: ownMember(payload, 'termsOfServiceAgreed'),
    };
    current = await updateAccount(services, current, change);
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
