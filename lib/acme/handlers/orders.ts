/**
 * Orders (RFC 8555 §7.4): newOrder, the order itself, finalize. An account reads and acts on its own
 * orders only; another account's order is `unauthorized`, as an unknown one.
 */
import type { AcmeOrderRecord } from '../../ports';
import { decodeBase64url, isJsonObject, ownMember } from '../encoding';
import { finalizeOrder } from '../finalize';
import { orderJson } from '../objects';
import { placeOrder } from '../orders';
import { malformed, orderNotReady, unauthorized } from '../problems';
import type { AcmeAnswer, AcmeCall } from '../route-types';
import { canFinalize } from '../state-machine';

/** What a client waiting on `processing` is told to wait before asking again (RFC 8555 §7.4). */
const PROCESSING_RETRY_AFTER_S = '1';

/** newOrder (§7.4). */
export async function newOrder(call: AcmeCall): Promise<AcmeAnswer> {
  const { ca, services, urls, now } = call;
  const account = call.account;
  const payload = call.jws?.payload;
  if (!account) throw malformed('Request requires a JWK key ID.');
  if (!isJsonObject(payload)) throw malformed('The payload must be a JSON object.');
  const request = {
    identifiers: ownMember(payload, 'identifiers'),
    notBefore: ownMember(payload, 'notBefore'),
    notAfter: ownMember(payload, 'notAfter'),
  };
  const order = await placeOrder(services, ca, account, request, now);
  return { status: 201, body: orderJson(order, urls), headers: { Location: urls.order(order.slug) } };
}

async function ownOrder(call: AcmeCall): Promise<AcmeOrderRecord> {
  const order = await call.services.acme.findOrder(call.ca.id, call.params.slug);
  if (!order || !call.account || order.accountId !== call.account.id) throw unauthorized('You are not authorized to perform this request.');
  return order;
}

function orderAnswer(order: AcmeOrderRecord, call: AcmeCall): AcmeAnswer {
  const headers: Record<string, string> = { Location: call.urls.order(order.slug) };
  if (order.status === 'processing') headers['Retry-After'] = PROCESSING_RETRY_AFTER_S;
  return { status: 200, body: orderJson(order, call.urls), headers };
}

/** The order (POST-as-GET). */
export async function order(call: AcmeCall): Promise<AcmeAnswer> {
  return orderAnswer(await ownOrder(call), call);
}

/**
 * finalize (§7.4): the CSR checked against the order and the key policy, the order `processing`, the
 * certificate issued in the request when it can be within `finalizeWaitMs` (answer `valid`), else
 * `processing` with `Retry-After` while the runner finishes it.
 */
export async function finalize(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, ca, now } = call;
  const current = await ownOrder(call);
  if (!canFinalize(current)) {
    if (current.status === 'processing' || current.status === 'valid') return orderAnswer(current, call);
    throw orderNotReady(`This order is not yet ready (its status is "${current.status}").`);
  }
  const payload = call.jws?.payload;
  const csrText = isJsonObject(payload) ? ownMember(payload, 'csr') : undefined;
  const der = typeof csrText === 'string' ? decodeBase64url(csrText) : null;
  if (!der) throw malformed('"csr" must be the CSR in base64url DER.');
  const from = { address: call.req.ip ?? null, now };
  return orderAnswer(await finalizeOrder(services, ca, current, der, from, () => ownOrder(call)), call);
}
