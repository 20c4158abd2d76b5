/**
 * Every ACME POST, checked in RFC 8555's order before any handler sees it (§6.2–§6.5): the content
 * type, the JWS and its signer (`jwk` or `kid`, as the route wants), the account behind a `kid`, the
 * signature, the nonce (consumed only once the signature verified, so a forged request cannot burn a
 * client's nonce), the `url`, and for POST-as-GET an empty payload. The first failure wins. A request
 * that only reads has its nonce used while its handler reads (`readsOnPostAsGet`).
 */
import type { Request } from 'express';
import { readRawBody } from '../http/body';
import { ClientGoneError } from '../http/client-gone';
import type { AcmeAccountRecord, CaRecord } from '../ports';
import { publicKeyFromJwk } from './jwk';
import { MAX_JWS_BYTES, parseJws, verifyJws, type ParsedJws } from './jws';
import { AcmeProblem, accountDoesNotExist, badNonce, malformed, unauthorized } from './problems';
import type { AcmeRoute } from './route-types';
import type { AcmeServices } from './services';
import { requestUrl, type AcmeUrls } from './urls';

export const JOSE_CONTENT_TYPE = 'application/jose+json';

export interface Authenticated {
  jws: ParsedJws;
  account: AcmeAccountRecord | null;
  /**
   * Settles once the nonce is used: rejects with `badNonce` if it was not accepted. Already settled
   * unless the request only reads (`readsOnPostAsGet`), whose handler may run meanwhile.
   */
  nonceUsed: Promise<void>;
}

async function readJws(req: Request): Promise<ParsedJws> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== JOSE_CONTENT_TYPE) {
    throw new AcmeProblem('malformed', 415, 'Requests must use the application/jose+json content type.');
  }
  let raw: Buffer;
  try {
    raw = await readRawBody(req, MAX_JWS_BYTES);
  } catch (error) {
    if (error instanceof ClientGoneError) throw error; // noted by the module's catch, not a bad JWS
    throw malformed(`The JWS is larger than ${MAX_JWS_BYTES} bytes.`);
  }
  return parseJws(raw);
}

/** The account a `kid` names: its URL at this CA, whatever host the client reached it by (docs/guides/acme.md). */
export async function accountOfKid(kid: string, ca: CaRecord, services: AcmeServices): Promise<AcmeAccountRecord> {
  const m = /\/([0-9A-F]+)\/acct\/([A-Za-z0-9]{1,32})\/?$/.exec(kid);
  const account = m && m[1] === ca.serial ? await services.accounts.findAccount(ca.id, m[2]) : null;
  if (!account) throw accountDoesNotExist('Account not found.');
  if (account.status === 'deactivated') throw new AcmeProblem('unauthorized', 401, 'Account has been deactivated.');
  if (account.status !== 'valid') throw new AcmeProblem('unauthorized', 401, 'Account not usable.');
  return account;
}

export async function authenticate(
  req: Request,
  route: AcmeRoute,
  ca: CaRecord,
  urls: AcmeUrls,
  services: AcmeServices,
): Promise<Authenticated> {
  const jws = await readJws(req);
  const wanted = route.signer ?? 'kid';
  if (wanted === 'jwk' && jws.signer.kind !== 'jwk') throw malformed('Request requires a full JWK key.');
  if (wanted === 'kid' && jws.signer.kind !== 'kid') throw malformed('Request requires a JWK key ID.');

  let account: AcmeAccountRecord | null = null;
  let key;
  if (jws.signer.kind === 'kid') {
    account = await accountOfKid(jws.signer.kid, ca, services);
    key = publicKeyFromJwk(account.jwk).key;
  } else key = jws.signer.key;
  verifyJws(jws, key);

  const nonceUsed = services.nonces.consumeAcmeNonce(jws.nonce).then((accepted) => {
    if (!accepted) throw badNonce('Bad or invalid nonce.');
  });
  nonceUsed.catch(() => undefined); // settled by whoever awaits it below or in the mount
  const reads = jws.postAsGet && (route.postAsGet === true || route.readsOnPostAsGet === true);
  if (!reads) await nonceUsed;
  try {
    if (jws.url !== requestUrl(req)) throw unauthorized('URL does not match.');
    if (account && ca.termsOfService && !account.termsOfServiceAgreed && !route.beforeTerms) {
      throw unauthorized('Account did not agree to the terms of service.');
    }
    if (route.postAsGet && !jws.postAsGet) throw malformed('Non-empty payload in get-as-post request.');
  } catch (error) {
    await nonceUsed; // RFC 8555's order: a bad nonce is reported before these
    throw error;
  }
  return { jws, account, nonceUsed };
}
