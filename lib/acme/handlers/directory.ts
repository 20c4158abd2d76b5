/**
 * The directory (RFC 8555 §7.1.1): `directory/` for the default CA, `directory/{serial}/` for one CA.
 * Unlike the original's placeholder, `keyChange` works; `renewalInfo` (RFC 9773) is offered, and
 * `meta` names the CA's website, terms of service, CAA identity and whether accounts need an external
 * account binding.
 */
import { randomBytes } from 'crypto';
import { defaultAcmeCa } from '../ca-lookup';
import type { AcmeAnswer, AcmeCall } from '../route-types';
import { AcmeUrls } from '../urls';

async function directoryAnswer(call: AcmeCall, urls: AcmeUrls): Promise<AcmeAnswer> {
  const { ca } = call;
  const meta: Record<string, unknown> = {};
  if (ca.website) meta.website = ca.website;
  if (ca.termsOfService) meta.termsOfService = ca.termsOfService;
  if (ca.caaIdentity) meta.caaIdentities = [ca.caaIdentity];
  if ((await call.services.policies.policy(ca.id)).eabRequired) meta.externalAccountRequired = true;
  const body: Record<string, unknown> = {
    // A random member, as the original and Let's Encrypt add, so that clients do not expect a fixed set.
    [randomBytes(16).toString('base64url')]: 'https://community.letsencrypt.org/t/adding-random-entries-to-the-directory/33417',
    keyChange: urls.keyChange,
    newAccount: urls.newAccount,
    newNonce: urls.newNonce,
    newOrder: urls.newOrder,
    renewalInfo: urls.renewalInfo,
    revokeCert: urls.revokeCert,
  };
  if (Object.keys(meta).length > 0) body.meta = meta;
  return { status: 200, body };
}

/** `directory/{serial}/`: the CA was checked by the module. */
export async function caDirectory(call: AcmeCall): Promise<AcmeAnswer> {
  return directoryAnswer(call, call.urls);
}

/** `directory/`: the default CA (`CA_DEFAULT_CA`, else the ACME CA that expires last). */
export async function defaultDirectory(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, now, req } = call;
  const ca = await defaultAcmeCa(services.store, services.cas, services.options.defaultCa, now);
  return directoryAnswer({ ...call, ca }, new AcmeUrls(req, call.urls.prefix, ca.serial));
}
