/**
 * An EST endpoint with `approval` (docs/guides/est.md): a new enrolment waits for an operator
 * (lib/enrolment/approval.ts). The device re-sends the same simpleenroll (strongSwan does, on a new
 * connection, every `max(--interval, Retry-After)`): it is matched by the user it authenticated as and
 * the CSR's public key, and answered 202 while it waits, the certificate once approved, 403 with the
 * operator's reason once refused.
 *
 * Where the endpoint asks for a challenge (a webhook), a new request's is checked before it is kept,
 * and a one-time one used up in the transaction that keeps it — as SCEP's (lib/scep/approval.ts). A
 * repetition is answered as its request stands without its challenge being asked again: the
 * authenticated user and the key identify it, and the one-time challenge it carries is spent.
 */
import type { Response } from 'express';
import { estRequestKey, heldAnswer, holdForApproval } from '../enrolment/approval';
import { useOnce } from '../enrolment/challenges';
import type { ResolvedEndpoint } from '../enrolment/endpoint';
import type { Actor, ApiUser } from '../ports';
import type { ParsedCsr } from '../x509/csr';
import { estChallenge } from './enroller';
import { estError, sendCertificate, sendPending } from './framing';
import type { EstServices } from './route-types';

export async function enrolAfterApproval(
  services: EstServices,
  res: Response,
  endpoint: ResolvedEndpoint,
  user: ApiUser,
  csr: ParsedCsr,
  requester: Actor,
): Promise<void> {
  const key = estRequestKey(`api_user:${user.id}`, csr);
  const answer =
    (await heldAnswer(services.store, 'est', endpoint, key)) ??
    (await holdForApproval(services, endpoint, csr, {
      protocol: 'est',
      key,
      requester,
      link: useOnce(await estChallenge(services, endpoint, csr)),
    }));
  if (answer.status === 'approved') return sendCertificate(res, answer.certificate.der);
  if (answer.status === 'refused') throw estError(403, answer.reason);
  sendPending(res, services.retryAfterSeconds, answer.request.id);
}
