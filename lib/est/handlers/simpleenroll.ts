/**
 * `POST simpleenroll` (RFC 7030 §4.2.1): an API user with `sign_certificate` for the endpoint's CA
 * (HTTP Basic, §3.2.3) sends base64 of a PKCS#10 (with a challenge password the endpoint's webhook
 * accepts, where it has one); the answer is the new certificate alone as base64 certs-only PKCS#7
 * (§4.2.3) — its chain comes from `cacerts`. At an endpoint with `approval`, 202 until an operator
 * decides (lib/est/approval.ts).
 */
import { readRawBody } from '../../http/body';
import { apiUserActor } from '../../ca/actors';
import { enrollingEndpoint } from '../endpoint';
import { enrollingUser, estChallenge } from '../enroller';
import { useOnce } from '../../enrolment/challenges';
import { enrol, readCsr } from '../../enrolment/enrol';
import { decodeBase64Body, sendCertificate } from '../framing';
import type { EstHandler } from '../route-types';
import { enrolAfterApproval } from '../approval';

export const simpleenroll: EstHandler = async ({ req, res, params, services }) => {
  const endpoint = await enrollingEndpoint(services, params.label);
  const user = await enrollingUser(services, req, res, endpoint.ca);
  const csrDer = decodeBase64Body(await readRawBody(req, services.bodyLimit), 'certificate request');
  const csr = await readCsr(csrDer, services.verifier);
  const requester = apiUserActor(user, req.ip ?? null, 'est');
  // An endpoint with `approval`: the request waits for an operator, its challenge checked once (lib/est/approval.ts).
  if (endpoint.approval) return enrolAfterApproval(services, res, endpoint, user, csr, requester);
  const use = await estChallenge(services, endpoint, csr);
  const certificate = await enrol(services, endpoint, csr, requester, { link: useOnce(use) });
  sendCertificate(res, certificate.der);
};
