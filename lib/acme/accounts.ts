/**
 * The account service (RFC 8555 §7.3): the CA's rules for a new account and for changes to one, so that
 * the handlers (handlers/accounts.ts) only read the payload and shape the answer.
 *
 * A new account's checks run in this order, each refusing with its own problem: an account of the key
 * already there is answered as it is (§7.3.1); `onlyReturnExisting`; registration open
 * (`acme_registration`); the contacts (contacts.ts) and one where the CA requires it
 * (`acme_requires_contact`); the external account binding, or the CA's policy requiring one (§7.3.4,
 * eab/check-binding.ts); the per-address limit (`newAccountsPerAddress`).
 */
import type { AcmeAccountRecord, CaRecord } from '../ports';
import { parseContacts } from './contacts';
import { checkedEabKid } from './eab/check-binding';
import { jwkThumbprint, type PublicJwk } from './jwk';
import { accountDoesNotExist, externalAccountRequired, malformed, rateLimited, unauthorized, withRetryAfter } from './problems';
import type { AcmeServices } from './services';
import { onAccountDeactivated } from './state-machine';

/** What a newAccount payload asks for (the members as sent: checked here) and where it came from. */
export interface NewAccountRequest {
  jwk: PublicJwk;
  onlyReturnExisting: boolean;
  contact: unknown;
  termsOfServiceAgreed: boolean;
  /** `externalAccountBinding`, absent: undefined. */
  binding: unknown;
  /** The newAccount URL the binding must name. */
  newAccountUrl: string;
  address: string | null;
}

/** The account of the request's key: found (`created: false`) or made. */
export async function registerAccount(
  services: AcmeServices,
  ca: CaRecord,
  request: NewAccountRequest,
  now: Date,
): Promise<{ account: AcmeAccountRecord; created: boolean }> {
  const thumbprint = jwkThumbprint(request.jwk);
  const existing = await services.acme.findAccountByThumbprint(ca.id, thumbprint);
  if (existing) return { account: existing, created: false };
  if (request.onlyReturnExisting) throw accountDoesNotExist('Account does not exist.');
  if (!ca.acmeRegistration) throw unauthorized('Account registration is disabled.');
  const contact = parseContacts(request.contact);
  if (ca.acmeRequiresContact && contact.length === 0) throw unauthorized('Must provide at least one contact address.');
  let eabKid: string | null = null;
  if (request.binding !== undefined) {
    const context = { url: request.newAccountUrl, accountJwk: request.jwk, caId: ca.id, acme: services.acme, box: services.secrets };
    eabKid = await checkedEabKid(request.binding, context);
  } else if ((await services.policies.policy(ca.id)).eabRequired) {
    throw externalAccountRequired('This CA requires an external account binding (RFC 8555 §7.3.4).');
  }
  const limit = services.options.newAccountsPerAddress;
  const address = request.address;
  if (limit && address) {
    const since = new Date(now.getTime() - limit.windowMs);
    if ((await services.acme.countAccountsFrom(address, since)) >= limit.limit) {
      throw withRetryAfter(rateLimited(`At most ${limit.limit} new accounts per address in ${limit.windowMs / 1000} s.`), limit.windowMs);
    }
  }
  return services.acme.createAccount({
    caId: ca.id,
    jwk: request.jwk as unknown as Record<string, string>,
    thumbprint,
    contact,
    termsOfServiceAgreed: request.termsOfServiceAgreed,
    remoteAddress: address,
    eabKid,
  });
}

/** What an account update payload asks for (§7.3.2, §7.3.6), the members as sent. */
export interface AccountChange {
  status: unknown;
  contact: unknown;
  termsOfServiceAgreed: unknown;
}

/** The account after the change: new contacts, the terms agreed, or deactivated; nothing asked, as it is. */
export async function updateAccount(services: AcmeServices, current: AcmeAccountRecord, change: AccountChange): Promise<AcmeAccountRecord> {
  const { status, contact, termsOfServiceAgreed } = change;
  if (status !== undefined && status !== 'deactivated' && status !== 'valid') {
    throw malformed('An account can only be deactivated ("status": "deactivated").');
  }
  const patch: Parameters<AcmeServices['acme']['updateAccount']>[1] = {};
  if (contact !== undefined) patch.contact = parseContacts(contact);
  if (termsOfServiceAgreed === true) patch.termsOfServiceAgreed = true;
  if (status !== 'deactivated') return Object.keys(patch).length > 0 ? services.acme.updateAccount(current.id, patch) : current;
  const { account, cascade } = onAccountDeactivated();
  return services.acme.updateAccount(current.id, { ...patch, status: account }, cascade);
}
