/**
 * Who may enrol at an EST endpoint (RFC 7030 §3.2.3, docs/guides/est.md): an API user (HTTP Basic) with
 * `sign_certificate` for the endpoint's CA; and, where the endpoint has a `challengeWebhook`, a
 * challenge password in the CSR that the host's webhook accepts (RFC 7030 §3.2.3 lets the CSR carry
 * one). `simpleenroll` and `serverkeygen` ask exactly this.
 */
import type { Request, Response } from 'express';
import { checkChallenge, type ChallengeUse } from '../enrolment/challenges';
import type { ResolvedEndpoint } from '../enrolment/endpoint';
import type { ApiUser, CaRecord } from '../ports';
import type { ParsedCsr } from '../x509/csr';
import { X509Error } from '../x509/errors';
import { challengePassword } from '../x509/scep';
import { EST_REALM, estError } from './framing';
import type { EstServices } from './route-types';

/** The authenticated user allowed to enrol with `ca`; else 401 (with `WWW-Authenticate`) or 403. */
export async function enrollingUser(services: EstServices, req: Request, res: Response, ca: CaRecord): Promise<ApiUser> {
  const user = await services.authenticate(req, res);
  if (!user)
    throw estError(401, 'Authentication required: an API user (HTTP Basic).', { 'WWW-Authenticate': `Basic realm="${EST_REALM}"` });
  if (!(await services.permissions.hasPermission(user, 'sign_certificate', { caSerial: ca.serial }))) {
    throw estError(403, `${user.username} may not sign certificates with this certificate authority.`);
  }
  return user;
}

/**
 * Whether `endpoint` asks for a challenge password in the CSR (what `csrattrs` advertises): where it
 * has a challenge webhook, or a static challenge (which EST's options and stored endpoints do not give).
 */
export function asksChallenge(endpoint: ResolvedEndpoint): boolean {
  return endpoint.challengeWebhook !== null || endpoint.challenge !== null || endpoint.challengeSha256 !== null;
}

/**
 * Where the endpoint has a challenge webhook: the CSR's challenge password, a one-time one or one the
 * webhook accepts (else 403, "missing or wrong"); elsewhere no challenge is asked (null). A one-time
 * one is used up by `useOnce` with the certificate, or when the request is kept for approval.
 */
export async function estChallenge(services: EstServices, endpoint: ResolvedEndpoint, csr: ParsedCsr): Promise<ChallengeUse | null> {
  if (!asksChallenge(endpoint)) return null;
  let given: string | undefined;
  try {
    given = challengePassword(csr.der);
  } catch (e) {
    if (!(e instanceof X509Error)) throw e;
    given = undefined; // not a DirectoryString: no challenge a webhook could judge
  }
  const webhook = { ports: services.challengeWebhooks, transactionId: null };
  return checkChallenge(services.store, 'est', endpoint, given, csr, new Date(), webhook);
}
