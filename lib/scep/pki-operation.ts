/**
 * PKIOperation (RFC 8894 §3): a pkiMessage in, a CertRep out, signed by the CA's registration
 * authority (lib/scep/ra.ts) and — for a SUCCESS — encrypted to the requester's signer
 * certificate with the cipher the request used.
 *
 * A message that cannot be read far enough to know its signer, transaction and nonce is a 400: no
 * reply could be addressed. From then on every refusal is a signed FAILURE with its failInfo: a bad
 * signature or digest, or any failure to decrypt (whether the RSA padding or the content was wrong:
 * one answer for both, lib/x509/scep/rsa-unpad.ts) is badMessageCheck; a digest or cipher turned off
 * (`scep.legacyAlgorithms: false`) is badAlg; what the enrolment core refuses is badRequest or
 * badCertId with its reason as failInfoText.
 */
import { caChain } from '../ca/lookup';
import { EnrolmentError } from '../enrolment/errors';
import { spendRequest } from '../enrolment/rate-limit';
import { X509Error } from '../x509/errors';
import {
  buildCertRep,
  openEnvelope,
  readPkiMessage,
  ScepMessageError,
  type CertRepInput,
  type PkiMessage,
  type ScepCipher,
  type ScepDigest,
} from '../x509/scep';
import { scepEndpoint } from './endpoint';
import { answerRequest } from './requests';
import type { ScepServices } from './route-types';
import { scepError } from './transport';

const LEGACY_DIGESTS: readonly ScepDigest[] = ['sha1'];
const LEGACY_CIPHERS: readonly ScepCipher[] = ['des-cbc', 'des-ede3-cbc'];

/** The DER CertRep answering the pkiMessage `der` at the endpoint of `label`, from `address`. */
export async function answerPkiMessage(
  services: ScepServices,
  label: string | undefined,
  der: Buffer,
  address: string | null,
): Promise<Buffer> {
  const endpoint = await scepEndpoint(services, label);
  spendRequest(services.rateLimits, 'SCEP', endpoint);
  const ra = await services.ras.forCa(endpoint.ca);
  const chain = (await caChain(services.cas, endpoint.ca)).map((c) => c.der);

  let message: PkiMessage;
  const reply = (to: { transactionId: string; senderNonce: Buffer }, answer: CertRepInput['reply']) =>
    buildCertRep({
      signer: { certificateDer: ra.certificateDer, chainDer: chain, signer: ra.signer },
      transactionId: to.transactionId,
      recipientNonce: to.senderNonce,
      reply: answer,
    });
  try {
    message = readPkiMessage(der);
  } catch (e) {
    if (e instanceof ScepMessageError && e.transactionId !== undefined && e.senderNonce !== undefined) {
      return reply({ transactionId: e.transactionId, senderNonce: e.senderNonce }, { status: 'FAILURE', failInfo: e.failInfo });
    }
    if (e instanceof X509Error) throw scepError(400, `The PKIOperation message cannot be read: ${e.message}`);
    throw e;
  }

  try {
    if (!services.legacyAlgorithms && LEGACY_DIGESTS.includes(message.digest)) {
      return await reply(message, { status: 'FAILURE', failInfo: 'badAlg', failInfoText: `${message.digest} is turned off here.` });
    }
    const { content, cipher } = await openEnvelope(message.envelope, {
      certificateDer: ra.certificateDer,
      decryptRaw: (block) => ra.decrypter.decryptRaw(block),
    });
    if (!services.legacyAlgorithms && LEGACY_CIPHERS.includes(cipher)) {
      return await reply(message, { status: 'FAILURE', failInfo: 'badAlg', failInfoText: `${cipher} is turned off here.` });
    }
    const { certificates, crls, pending } = await answerRequest(services, endpoint, message, content, address);
    if (pending) return await reply(message, { status: 'PENDING' });
    return await reply(message, { status: 'SUCCESS', certificates, crls, recipientCertificateDer: message.signerCertificate, cipher });
  } catch (e) {
    if (e instanceof ScepMessageError) return reply(message, { status: 'FAILURE', failInfo: e.failInfo });
    if (e instanceof EnrolmentError) return reply(message, { status: 'FAILURE', failInfo: e.failInfo, failInfoText: e.message });
    throw e;
  }
}
