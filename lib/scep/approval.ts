/**
 * A SCEP endpoint with `approval` (docs/guides/scep.md): a new enrolment (PKCSReq with a challenge) waits
 * for an operator (lib/enrolment/approval.ts) and is answered PENDING (RFC 8894 §3.3.2). The client
 * polls: strongSwan with CertPoll (messageType 20, RFC 8894 §3.3.3) in the same transaction, signed
 * by the same key; micromdm's scepclient by sending the same PKCSReq again. Both are matched by the
 * transactionID and the signer's public key — the signature proves the key, so no one else can ask —
 * and answered PENDING, SUCCESS with the certificate once approved, or FAILURE badRequest with the
 * operator's reason once refused. Renewals (signed by the certificate being renewed) do not wait.
 */
import { heldAnswer, holdForApproval, scepRequestKey, type HeldAnswer } from '../enrolment/approval';
import { useOnce, type ChallengeUse } from '../enrolment/challenges';
import type { ResolvedEndpoint } from '../enrolment/endpoint';
import { EnrolmentError } from '../enrolment/errors';
import type { Actor } from '../ports';
import type { ParsedCertificate } from '../x509/certificate';
import type { ParsedCsr } from '../x509/csr';
import { readIssuerAndSubject, type PkiMessage } from '../x509/scep';
import type { ScepServices } from './route-types';

/** What a SUCCESS carries, or PENDING. */
export type HeldScepAnswer = { pending: true } | { pending: false; certificate: Buffer };

const keyOf = (message: PkiMessage, signer: ParsedCertificate) => scepRequestKey(message.transactionId, signer.publicKey.der);

function scepAnswer(answer: HeldAnswer): HeldScepAnswer {
  if (answer.status === 'approved') return { pending: false, certificate: answer.certificate.der };
  if (answer.status === 'refused') throw new EnrolmentError(403, answer.reason, 'badRequest');
  return { pending: true };
}

/** A repetition of a PKCSReq already waiting or decided, as its request stands; null when it is a new one. */
export async function repeatedPkcsReq(
  services: ScepServices,
  endpoint: ResolvedEndpoint,
  message: PkiMessage,
  signer: ParsedCertificate,
): Promise<HeldScepAnswer | null> {
  const answer = await heldAnswer(services.store, 'scep', endpoint, keyOf(message, signer));
  return answer && scepAnswer(answer);
}

/** A new PKCSReq, its challenge `use` checked: kept waiting for an operator, PENDING. */
export async function holdPkcsReq(
  services: ScepServices,
  endpoint: ResolvedEndpoint,
  message: PkiMessage,
  signer: ParsedCertificate,
  csr: ParsedCsr,
  use: ChallengeUse,
  requester: Actor,
): Promise<HeldScepAnswer> {
  const key = keyOf(message, signer);
  return scepAnswer(await holdForApproval(services, endpoint, csr, { protocol: 'scep', key, requester, link: useOnce(use) }));
}

/** CertPoll: the request of this transaction and signer key, as it stands; FAILURE badCertId when there is none. */
export async function certPoll(
  services: ScepServices,
  endpoint: ResolvedEndpoint,
  message: PkiMessage,
  signer: ParsedCertificate,
  content: Buffer,
): Promise<HeldScepAnswer> {
  // IssuerAndSubject is read to refuse a malformed poll; the issuer clients name is the RA's or the
  // CA's, and the transaction with the key names the request better than the subject would.
  readIssuerAndSubject(content);
  const answer = await repeatedPkcsReq(services, endpoint, message, signer);
  if (!answer) throw new EnrolmentError(404, 'No request of this transaction waits for approval.', 'badCertId');
  return answer;
}
