/**
 * Placing an order (RFC 8555 §7.4): the identifiers checked (identifiers.ts) and held to the CA's name
 * policy (policy/names.ts) before anything else, the requested validity window, the per-account limit
 * (`newOrdersPerAccount`), and the order written with its authorizations and their challenges in one
 * call to the store. The handler (handlers/orders.ts) only reads the payload and shapes the answer.
 */
import { randomBytes } from 'crypto';
import type { AcmeAccountRecord, AcmeOrderRecord, CaRecord } from '../ports';
import { parseOrderIdentifiers } from './identifiers';
import { loadPolicyContext } from '../ca/policy/context';
import { checkOrderAgainstCaPolicy } from './policy/ca-policy';
import { checkNamePolicy } from './policy/names';
import { malformed, rateLimited, withRetryAfter } from './problems';
import type { AcmeServices } from './services';

/** What a newOrder payload asks for, the members as sent (checked here). */
export interface NewOrderRequest {
  identifiers: unknown;
  notBefore: unknown;
  notAfter: unknown;
}

function dateMember(value: unknown, name: string): Date | null {
  if (value === undefined || value === null) return null;
  const date = typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) throw malformed(`"${name}" must be an RFC 3339 date-time.`);
  return date;
}

/** The new order of `account`, `pending`, with a challenge of each type its identifiers allow. */
export async function placeOrder(
  services: AcmeServices,
  ca: CaRecord,
  account: AcmeAccountRecord,
  request: NewOrderRequest,
  now: Date,
): Promise<AcmeOrderRecord> {
  const identifiers = parseOrderIdentifiers(request.identifiers);
  checkNamePolicy(
    await services.policies.policy(ca.id),
    identifiers.map((i) => i.authorized),
  );
  const notBefore = dateMember(request.notBefore, 'notBefore');
  const notAfter = dateMember(request.notAfter, 'notAfter');
  const { maxCertValidityMs, orderValidityMs, newOrdersPerAccount } = services.options;
  if (notBefore && notBefore.getTime() < now.getTime() - 60_000) throw malformed('Certificate cannot be valid before now.');
  if (notBefore && notBefore > now) throw malformed('"notBefore" in the future is not supported: certificates are valid from their issue.');
  if (notAfter && notAfter.getTime() > now.getTime() + maxCertValidityMs) throw malformed('Certificate cannot be valid that long.');
  if (notAfter && notAfter <= now) throw malformed('"notAfter" must be in the future.');
  if (notBefore && notAfter && notBefore > notAfter) throw malformed('notBefore must be before notAfter.');
  checkOrderAgainstCaPolicy(
    ca,
    await loadPolicyContext(services.cas, ca),
    identifiers.map((i) => i.authorized),
    notAfter,
    now,
  );
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
  return order;
}
