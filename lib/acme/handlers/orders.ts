/**
 * Orders (RFC 8555 §7.4): newOrder, the order itself, finalize. An account reads and acts on its own
 * orders only; another account's order is `unauthorized`, as an unknown one.
 */
import { randomBytes } from 'crypto';
import type { AcmeOrderRecord } from '../../ports';
import { decodeBase64url, isJsonObject, ownMember } from '../encoding';
import { parseOrderIdentifiers } from '../identifiers';
import { checkNamePolicy } from '../policy/names';
import { orderJson } from '../objects';
import { malformed, orderNotReady, rateLimited, unauthorized, withRetryAfter } from '../problems';
import { checkedCsr } from '../policy/csr';
import { orderSignRequest } from '../issue';
import type { AcmeAnswer, AcmeCall } from '../route-types';

/** What a client waiting on `processing` is told to wait before asking again (RFC 8555 §7.4). */
const PROCESSING_RETRY_AFTER_S = '1';

function dateMember(payload: Record<string, unknown>, name: string): Date | null {
  const value = ownMember(payload, name);
  if (value === undefined || value === null) return null;
  const date = typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) throw malformed(`"${name}" must be an RFC 3339 date-time.`);
  return date;
}

/** newOrder (§7.4). */
export async function newOrder(call: AcmeCall): Promise<AcmeAnswer> {
  const { ca, services, urls, now } = call;
  const account = call.account;
  const payload = call.jws?.payload;
  if (!account) throw malformed('Request requires a JWK key ID.');
  if (!isJsonObject(payload)) throw malformed('The payload must be a JSON object.');
  const identifiers = parseOrderIdentifiers(ownMember(payload, 'identifiers'));
  checkNamePolicy(
    await services.policies.policy(ca.id),
    identifiers.map((i) => i.authorized),
  );
  const notBefore = dateMember(payload, 'notBefore');
  const notAfter = dateMember(payload, 'notAfter');
  const { maxCertValidityMs, orderValidityMs, newOrdersPerAccount } = services.options;
  if (notBefore && notBefore.getTime() < now.getTime() - 60_000) throw malformed('Certificate cannot be valid before now.');
  if (notBefore && notBefore > now) throw malformed('"notBefore" in the future is not supported: certificates are valid from their issue.');
  if (notAfter && notAfter.getTime() > now.getTime() + maxCertValidityMs) throw malformed('Certificate cannot be valid that long.');
  if (notAfter && notAfter <= now) throw malformed('"notAfter" must be in the future.');
  if (notBefore && notAfter && notBefore > notAfter) throw malformed('notBefore must be before notAfter.');
  const limit = newOrdersPerAccount
    ? { max: newOrdersPerAccount.limit, since: new Date(now.getTime() - newOrdersPerAccount.windowMs) }
    : undefined;
  const order = await services.acme.createOrder(
    {
      accountId: account.id,
      caId: ca.id,
      expires: new Date(now.getTime() + orderValidityMs),
      notBefore,
      notAfter,
      identifiers: identifiers.map((i) => i.requested),
      authorizations: identifiers.map((i) => ({
        identifier: i.authorized,
        wildcard: i.wildcard,
        // 128 bits or more of entropy, base64url (RFC 8555 §8.3): 32 bytes.
        challenges: i.challenges.map((type) => ({ type, token: randomBytes(32).toString('base64url') })),
      })),
    },
    limit,
  );
  if (!order && newOrdersPerAccount) {
    throw withRetryAfter(
      rateLimited(`At most ${newOrdersPerAccount.limit} new orders per account in ${newOrdersPerAccount.windowMs / 1000} s.`),
      newOrdersPerAccount.windowMs,
    );
  }
  if (!order) throw new Error('ACME order not written');
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
  if (current.status !== 'ready') {
    if (current.status === 'processing' || current.status === 'valid') return orderAnswer(current, call);
    throw orderNotReady(`This order is not yet ready (its status is "${current.status}").`);
  }
  const payload = call.jws?.payload;
  const csrText = isJsonObject(payload) ? ownMember(payload, 'csr') : undefined;
  const der = typeof csrText === 'string' ? decodeBase64url(csrText) : null;
  if (!der) throw malformed('"csr" must be the CSR in base64url DER.');
  const verify = services.verifier ? services.verifier.verify.bind(services.verifier) : undefined;
  const csr = await checkedCsr(der, current.identifiers, verify);
  const request = orderSignRequest(
    current,
    csr,
    ca,
    { profiles: services.profiles, defaultValidityMs: services.options.defaultCertValidityMs },
    now,
  );
  // The order moves to `processing` while its certificate is being signed; it is stored only if the
  // move succeeded (lib/acme/issue.ts), so a finalize that lost a race stores nothing.
  const address = call.req.ip ?? null;
  const started = services.acme.startIssuance(current.id, request, services.runner.owner, services.options.leaseMs, address);
  const processing = { ...current, status: 'processing' as const, sourceAddress: address };
  const issuing = services.runner.issueNow(ca, processing, request, services.options.finalizeWaitMs, started);
  if (!(await started)) {
    const again = await ownOrder(call);
    if (again.status === 'processing' || again.status === 'valid') return orderAnswer(again, call);
    throw orderNotReady(`This order is not ready (its status is "${again.status}").`);
  }
  const issued = await issuing;
  // Issued in time: the order is what completeIssuance wrote. Otherwise (still issuing, or failed
  // with its error recorded), as the store has it now.
  if (issued) return orderAnswer({ ...current, status: 'valid', certificateId: issued.id, certificateSerial: issued.serial }, call);
  return orderAnswer(await ownOrder(call), call);
}
