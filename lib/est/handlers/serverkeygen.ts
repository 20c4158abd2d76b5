/**
 * `POST serverkeygen` (RFC 7030 §4.4), where the endpoint offers it (`est.serverKeygen`,
 * `CA_EST_SERVERKEYGEN`; docs/guides/est.md): the same user, permission and PKCS#10 as `simpleenroll`, its
 * self-signature verified too, but the certificate is for a key pair made here: of the request key's
 * kind (lib/x509/csr-rekey.ts), put into the request in place of the client's key, then enrolled
 * through the same core and issuance service. The answer carries the private key (PKCS#8) and the
 * certificate; the key is kept nowhere — not stored, logged or put in an event (the stored request
 * holds only its public key).
 *
 * Refused: plain HTTP that is not from this machine (403: a private key is sent), and a request for
 * the key encrypted (§4.4.1.1, §4.4.1.2: DecryptKeyIdentifier, AsymmetricDecryptKeyIdentifier), which
 * this server does not offer (400, as §4.4.1.1 lets a server reject it).
 */
import { apiUserActor } from '../../ca/actors';
import { useOnce } from '../../enrolment/challenges';
import { enrol, readCsr } from '../../enrolment/enrol';
import { EnrolmentError } from '../../enrolment/errors';
import { readRawBody } from '../../http/body';
import { exportPrivateKey } from '../../x509/keys';
import {
  csrAttributeTypes,
  generateKeyLike,
  OID_ASYMMETRIC_DECRYPT_KEY_IDENTIFIER,
  OID_DECRYPT_KEY_IDENTIFIER,
  reKeyedCsr,
} from '../../x509/csr-rekey';
import { X509Error } from '../../x509/errors';
import { enrollingEndpoint } from '../endpoint';
import { enrollingUser, estChallenge } from '../enroller';
import { decodeBase64Body, estError, sendKeyAndCertificate } from '../framing';
import { isPrivateChannel } from '../secure-channel';
import type { EstHandler } from '../route-types';

const ENCRYPTED_KEY_REQUESTS = [OID_DECRYPT_KEY_IDENTIFIER, OID_ASYMMETRIC_DECRYPT_KEY_IDENTIFIER];

export const serverkeygen: EstHandler = async ({ req, res, params, services }) => {
  const endpoint = await enrollingEndpoint(services, params.label);
  if (!services.serverKeygen.has(endpoint.label)) throw estError(501, 'This EST server does not offer serverkeygen.');
  if (!isPrivateChannel(req)) {
    throw estError(403, 'serverkeygen sends a private key: use HTTPS (RFC 7030 §4.4).');
  }
  const user = await enrollingUser(services, req, res, endpoint.ca);
  const csrDer = decodeBase64Body(await readRawBody(req, services.bodyLimit), 'certificate request');
  const csr = await readCsr(csrDer, services.verifier);
  if (csrAttributeTypes(csr.der).some((type) => ENCRYPTED_KEY_REQUESTS.includes(type))) {
    throw estError(
      400,
      'This EST server does not encrypt server-generated keys: send the request without DecryptKeyIdentifier or AsymmetricDecryptKeyIdentifier; the key comes over TLS as PKCS#8 (RFC 7030 §4.4.1).',
    );
  }
  // The device's own request is what its challenge password came in.
  const use = await estChallenge(services, endpoint, csr);
  let privateKey;
  let serverCsr;
  try {
    privateKey = generateKeyLike(csr.publicKey);
    serverCsr = await readCsr(reKeyedCsr(csr.der, privateKey), services.verifier);
  } catch (e) {
    if (e instanceof X509Error) throw new EnrolmentError(400, `The server cannot make a key for this request: ${e.message}`);
    throw e;
  }
  const certificate = await enrol(services, endpoint, serverCsr, apiUserActor(user, req.ip ?? null, 'est'), { link: useOnce(use) });
  sendKeyAndCertificate(res, exportPrivateKey(privateKey), certificate.der);
};
