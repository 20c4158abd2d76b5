/**
 * `POST simplereenroll` (RFC 7030 §4.2.2): renewal or re-key, authenticated by the certificate being
 * renewed as the TLS client certificate (the host's HTTPS server must ask for one: docs/guides/est.md), or
 * as a trusted TLS-terminating proxy forwards it (`est.clientCertificateHeader`, client-certificate.ts).
 * The answer is the new certificate alone, as for `simpleenroll`.
 */
import { readRawBody } from '../../http/body';
import { enrollingEndpoint } from '../endpoint';
import { enrol, readCsr } from '../../enrolment/enrol';
import { certificateBeingRenewed, renewalActor } from '../../enrolment/renewal';
import { presentedCertificate } from '../client-certificate';
import { decodeBase64Body, estError, sendCertificate } from '../framing';
import type { EstHandler } from '../route-types';

export const simplereenroll: EstHandler = async ({ req, res, params, services }) => {
  const endpoint = await enrollingEndpoint(services, params.label);
  const csr = await readCsr(decodeBase64Body(await readRawBody(req, services.bodyLimit), 'certificate request'), services.verifier);
  const presented = presentedCertificate(req, services.clientCertificateHeader);
  if (!presented)
    throw estError(403, 'simplereenroll needs the certificate being renewed as the TLS client certificate (RFC 7030 §4.2.2).');
  const renewed = await certificateBeingRenewed(services.store, endpoint, presented.der, csr, presented.what);
  const certificate = await enrol(services, endpoint, csr, renewalActor(renewed, req.ip ?? null, 'est'));
  sendCertificate(res, certificate.der);
};
