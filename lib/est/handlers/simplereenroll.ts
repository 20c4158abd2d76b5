/**
 * `POST simplereenroll` (RFC 7030 §4.2.2): renewal or re-key, authenticated by the certificate being
 * renewed as the TLS client certificate (the host's HTTPS server must ask for one: README "EST").
 * The answer is the new certificate alone, as for `simpleenroll`.
 */
import type { TLSSocket } from 'tls';
import { readRawBody } from '../../http/body';
import { endpointCa } from '../endpoint';
import { enrol, readCsr } from '../enrol';
import { decodeBase64Body, sendCertificate } from '../framing';
import { certificateBeingRenewed, renewalActor } from '../renewal';
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
  const renewed = await certificateBeingRenewed(services, endpoint, clientCertificate(req.socket), csr);
  const certificate = await enrol(services, endpoint, csr, renewalActor(renewed, req.ip ?? null));
  sendCertificate(res, certificate.der);
};
