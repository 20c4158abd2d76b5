/**
 * `POST simplereenroll` (RFC 7030 §4.2.2): renewal or re-key, authenticated by the certificate being
 * renewed as the TLS client certificate (the host's HTTPS server must ask for one: README "EST").
 * The answer is the new certificate alone, as for `simpleenroll`.
 */
import type { TLSSocket } from 'tls';
import { readRawBody } from '../../http/body';
import { endpointCa } from '../endpoint';
import { enrol, readCsr } from '../../enrolment/enrol';
import { certificateBeingRenewed, renewalActor } from '../../enrolment/renewal';
import { decodeBase64Body, estError, sendCertificate } from '../framing';
import type { EstHandler } from '../route-types';

/** The DER of the client's TLS certificate, or null (plain HTTP, or none sent). */
function clientCertificate(socket: unknown): Buffer | null {
  const tls = socket as Partial<TLSSocket>;
  if (typeof tls.getPeerCertificate !== 'function') return null;
  const peer = tls.getPeerCertificate(false);
  return peer && Buffer.isBuffer(peer.raw) && peer.raw.length > 0 ? peer.raw : null;
}

export const simplereenroll: EstHandler = async ({ req, res, params, services }) => {
  const endpoint = await endpointCa(services, params.label);
  const csr = readCsr(decodeBase64Body(await readRawBody(req, services.bodyLimit), 'certificate request'));
  const clientDer = clientCertificate(req.socket);
  if (!clientDer)
    throw estError(403, 'simplereenroll needs the certificate being renewed as the TLS client certificate (RFC 7030 §4.2.2).');
  const renewed = await certificateBeingRenewed(services.store, endpoint, clientDer, csr, 'TLS client certificate');
  const certificate = await enrol(services, endpoint, csr, renewalActor(renewed, req.ip ?? null, 'est'));
  sendCertificate(res, certificate.der);
};
