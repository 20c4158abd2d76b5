/**
 * What each SCEP message asks for, once it is verified and decrypted (RFC 8894 §3.3), through the
 * enrolment core: the certificates the SUCCESS reply carries, or an `EnrolmentError` that becomes a
 * FAILURE with its failInfo.
 *
 * - PKCSReq (19): the CSR must carry the endpoint's static challenge password, a one-time one or one
 *   its challenge webhook accepts (lib/enrolment/challenges.ts) and be signed by the same key as the message — unless the message is signed by a certificate this
 *   CA issued to the same subject and still holds: that is a renewal, as some clients renew (the
 *   signature proves possession), whatever challenge it carries.
 * - RenewalReq (17): signed by the certificate being renewed (lib/enrolment/renewal.ts).
 * - Both answered once per transactionID and key: a repetition gets the first certificate back.
 * - At an endpoint with `approval`, a new PKCSReq (not a renewal) waits for an operator: PENDING, and
 *   CertPoll (20) or the same PKCSReq again asks how it stands (lib/scep/approval.ts).
 * - GetCert (21): a certificate of this CA by serial.
 * - GetCRL (22): the CA's current CRL (lib/ca/crls.ts, the one `{urlPath}crl/…` serves) for the
 *   certificate named by issuer and serial: the child-CA CRL for a CA it signed, else the end-entity one.
 */
import { caFacts } from '../ca/ca-facts';
import type { ResolvedEndpoint } from '../enrolment/endpoint';
import { enrol, readCsr } from '../enrolment/enrol';
import { EnrolmentError } from '../enrolment/errors';
import { certificateBeingRenewed, renewalActor } from '../enrolment/renewal';
import { checkChallenge, useOnce, type ChallengeUse } from '../enrolment/challenges';
import { oncePerTransaction, transactionKey } from '../enrolment/transactions';
import type { Actor, CertificateRecord, EnrolmentTransactionKey } from '../ports';
import { parseCertificate, type ParsedCertificate } from '../x509/certificate';
import type { ParsedCsr } from '../x509/csr';
import { X509Error } from '../x509/errors';
import { challengePassword, readIssuerAndSerial, ScepMessageError, type PkiMessage } from '../x509/scep';
import { certPoll, holdPkcsReq, repeatedPkcsReq, type HeldScepAnswer } from './approval';
import type { ScepServices } from './route-types';

/**
 * The decrypted content as a PKCS#10 with a valid self-signature. A content that is none is answered
 * as one that did not decrypt (badMessageCheck, no text): were it told apart, a request wrapping
 * someone else's envelope would learn whether its RSA padding held (RFC 3218 §2.3.2).
 */
async function decryptedCsr(services: ScepServices, content: Buffer): Promise<ParsedCsr> {
  try {
    return await readCsr(content, services.verifier);
  } catch (e) {
    if (e instanceof EnrolmentError) throw undecryptable();
    throw e;
  }
}

const undecryptable = () => new ScepMessageError('badMessageCheck', 'SCEP pkcsPKIEnvelope: the content cannot be decrypted');

export const MESSAGE_TYPES = { RenewalReq: 17, PKCSReq: 19, CertPoll: 20, GetCert: 21, GetCRL: 22 } as const;

/**
 * The certificate a PKCSReq renews: its signer certificate (`signer`, parsed), when this CA issued it,
 * still holds it (not revoked, not expired) and the CSR asks for its subject and subjectAltName; else
 * null, and the request is a new enrolment.
 */
async function renewing(
  services: ScepServices,
  endpoint: ResolvedEndpoint,
  message: PkiMessage,
  signer: ParsedCertificate,
  csr: ParsedCsr,
) {
  if (!signer.issuerDer.equals(caFacts(endpoint.ca).subjectDer)) return null;
  try {
    return await certificateBeingRenewed(services.store, endpoint, message.signerCertificate, csr, 'signer certificate');
  } catch (e) {
    if (e instanceof EnrolmentError) return null;
    throw e;
  }
}

/**
 * Who asked: the endpoint whose static challenge the device gave, the one-time challenge by its id,
 * or the endpoint's webhook that accepted the challenge.
 */
function deviceActor(endpoint: ResolvedEndpoint, use: ChallengeUse, address: string | null): Actor {
  const name =
    use.kind === 'one-time'
      ? `one-time challenge ${use.challenge.id}`
      : use.kind === 'webhook'
        ? `challenge webhook${endpoint.label ? ` ${endpoint.label}` : ''}`
        : endpoint.label || null;
  const actor: Actor = { type: 'challenge', name, protocol: 'scep' };
  return address ? { ...actor, address } : actor;
}

interface Request {
  services: ScepServices;
  endpoint: ResolvedEndpoint;
  message: PkiMessage;
  content: Buffer;
  csr: ParsedCsr;
  address: string | null;
}

/**
 * A PKCSReq at an endpoint with `approval`: a repetition answered as its request stands, a new one
 * (challenge and key checked as below) kept waiting; null for a renewal, which does not wait.
 */
async function heldPkcsReq({ services, endpoint, message, content, csr, address }: Request): Promise<HeldScepAnswer | null> {
  const signer = parseCertificate(message.signerCertificate);
  if (await renewing(services, endpoint, message, signer, csr)) return null;
  // Before the challenge: a one-time one was used up when the request was kept.
  const repeated = await repeatedPkcsReq(services, endpoint, message, signer);
  if (repeated) return repeated;
  const use = await scepChallenge(services, endpoint, message, content, csr);
  if (!signer.publicKey.der.equals(csr.publicKey.der)) {
    throw new EnrolmentError(400, 'The request must be signed with the key of its certificate request.', 'badRequest');
  }
  return holdPkcsReq(services, endpoint, message, signer, csr, use, deviceActor(endpoint, use, address));
}

/** The PKCSReq's challenge password: static, one-time, or accepted by the endpoint's webhook (lib/enrolment/challenges.ts). */
function scepChallenge(services: ScepServices, endpoint: ResolvedEndpoint, message: PkiMessage, content: Buffer, csr: ParsedCsr) {
  const webhook = { ports: services.challengeWebhooks, transactionId: message.transactionId };
  return checkChallenge(services.store, 'scep', endpoint, challengePassword(content), csr, new Date(), webhook);
}

async function pkcsReq({ services, endpoint, message, content, csr, address }: Request, answers: EnrolmentTransactionKey) {
  const signer = parseCertificate(message.signerCertificate);
  const renewed = await renewing(services, endpoint, message, signer, csr);
  if (renewed) return enrol(services, endpoint, csr, renewalActor(renewed, address, 'scep'), { answers });
  const use = await scepChallenge(services, endpoint, message, content, csr);
  if (!signer.publicKey.der.equals(csr.publicKey.der)) {
    throw new EnrolmentError(400, 'The request must be signed with the key of its certificate request.', 'badRequest');
  }
  return enrol(services, endpoint, csr, deviceActor(endpoint, use, address), { link: useOnce(use), answers });
}

async function renewalReq({ services, endpoint, message, csr, address }: Request, answers: EnrolmentTransactionKey) {
  const renewed = await certificateBeingRenewed(services.store, endpoint, message.signerCertificate, csr, 'signer certificate');
  return enrol(services, endpoint, csr, renewalActor(renewed, address, 'scep'), { answers });
}

/** A PKCSReq or RenewalReq, answered once per transaction and key (lib/enrolment/transactions.ts). */
async function enrolment(
  request: Request,
  answer: (request: Request, answers: EnrolmentTransactionKey) => Promise<CertificateRecord>,
): Promise<Buffer> {
  const { services, endpoint, message, csr } = request;
  // A repetition is the same request: its type, transaction, signer certificate and CSR. Clients derive
  // the transactionID from the key and keep the key across renewals, so a new request with the same key
  // (a renewal signed by the certificate the last one gave, another try) is not one.
  const transaction = `${message.messageType}:${message.transactionId}`;
  const key = transactionKey('scep', endpoint.label, transaction, Buffer.concat([message.signerCertificate, csr.der]));
  const certificate = await oncePerTransaction(services.store, endpoint.ca, key, () => answer(request, key));
  return certificate.der;
}

async function getCert(services: ScepServices, endpoint: ResolvedEndpoint, content: Buffer): Promise<Buffer> {
  const { issuer, serial } = readIssuerAndSerial(content);
  const stored = issuer.equals(caFacts(endpoint.ca).subjectDer) ? await services.store.findCertificate(endpoint.ca.id, serial) : null;
  if (!stored) throw new EnrolmentError(404, `This certificate authority has no certificate ${serial}.`, 'badCertId');
  return stored.der;
}

/**
 * What a SUCCESS carries in its certs-only bag (RFC 8894 §3.3.2): certificates, or for GetCRL a CRL;
 * `pending`: nothing yet, the request waits for an operator (a PENDING).
 */
export interface ScepAnswer {
  certificates: Buffer[];
  crls: Buffer[];
  pending?: boolean;
}

async function getCrl(services: ScepServices, endpoint: ResolvedEndpoint, content: Buffer): Promise<ScepAnswer> {
  const { issuer, serial } = readIssuerAndSerial(content);
  const { ca } = endpoint;
  if (!issuer.equals(caFacts(ca).subjectDer)) throw new EnrolmentError(404, `${ca.name} did not issue that certificate.`, 'badCertId');
  const child = await services.store.findCaBySerial(serial);
  const scope = child && child.parentId === ca.id ? 'ca' : 'user';
  return { certificates: [], crls: [(await services.crls.current(ca, scope)).der] };
}

const certificatesOnly = (certificates: Buffer[]): ScepAnswer => ({ certificates, crls: [] });

/** A held request's answer: PENDING, or SUCCESS with its certificate. */
const held = (answer: HeldScepAnswer): ScepAnswer =>
  answer.pending ? { certificates: [], crls: [], pending: true } : certificatesOnly([answer.certificate]);

/** What a SUCCESS answers `message` (decrypted `content`) with; else an `EnrolmentError`. */
export async function answerRequest(
  services: ScepServices,
  endpoint: ResolvedEndpoint,
  message: PkiMessage,
  content: Buffer,
  address: string | null,
): Promise<ScepAnswer> {
  try {
    switch (message.messageType) {
      case MESSAGE_TYPES.PKCSReq:
      case MESSAGE_TYPES.RenewalReq: {
        const request = { services, endpoint, message, content, csr: await decryptedCsr(services, content), address };
        const waiting = endpoint.approval && message.messageType === MESSAGE_TYPES.PKCSReq ? await heldPkcsReq(request) : null;
        if (waiting) return held(waiting);
        return certificatesOnly([await enrolment(request, message.messageType === MESSAGE_TYPES.PKCSReq ? pkcsReq : renewalReq)]);
      }
      case MESSAGE_TYPES.GetCert:
        return certificatesOnly([await getCert(services, endpoint, content)]);
      case MESSAGE_TYPES.CertPoll:
        return held(await certPoll(services, endpoint, message, parseCertificate(message.signerCertificate), content));
      case MESSAGE_TYPES.GetCRL:
        return await getCrl(services, endpoint, content);
      default:
        throw new EnrolmentError(400, `Message type ${message.messageType} is not one a SCEP server answers.`);
    }
  } catch (e) {
    if (e instanceof X509Error && !(e instanceof ScepMessageError)) throw undecryptable();
    throw e;
  }
}
