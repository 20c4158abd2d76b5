/**
 * The certificate an EST client authenticates with (RFC 7030 §3.3.2, docs/guides/est.md): its TLS client
 * certificate, or — behind a TLS-terminating proxy — the certificate the proxy forwards in the header
 * named by `est.clientCertificateHeader` (`CA_EST_CLIENT_CERT_HEADER`).
 *
 * The header is read only when the request's immediate peer is a proxy the host trusts, by the same
 * test Express applies to `X-Forwarded-Proto` (`req.secure`): the app's `trust proxy` setting, asked
 * about the socket's address. Any other peer's header is ignored, as if it were not there: whoever can
 * reach the server directly could write it. A certificate from the TLS handshake always wins over a
 * header: the client proved its key to us, not to someone in between.
 */
import type { Request } from 'express';
import type { TLSSocket } from 'tls';
import { X509Error } from '../x509/errors';
import { parseCertificate } from '../x509/certificate';
import { estError } from './framing';

export interface PresentedCertificate {
  der: Buffer;
  /** How it was presented, as the refusals name it. */
  what: 'TLS client certificate' | 'forwarded client certificate';
}

/** RFC 9110 §5.1: a field name is a token. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `value` as a header name to read forwarded certificates from (lower case), null for none; else why not. */
export function clientCertificateHeaderProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !FIELD_NAME.test(value)) return `must be a header name such as 'X-SSL-Client-Cert'`;
  return null;
}

/** The DER of the client's TLS certificate, or null (plain HTTP, or none sent). */
function tlsClientCertificate(socket: unknown): Buffer | null {
  const tls = socket as Partial<TLSSocket>;
  if (typeof tls.getPeerCertificate !== 'function') return null;
  const peer = tls.getPeerCertificate(false);
  return peer && Buffer.isBuffer(peer.raw) && peer.raw.length > 0 ? peer.raw : null;
}

/** Does the host's `trust proxy` trust the socket's peer (Express's own test for `req.protocol`)? Off: never. */
function fromTrustedProxy(req: Request): boolean {
  const trust = req.app?.get('trust proxy fn') as ((address: string, hop: number) => boolean) | undefined;
  return typeof trust === 'function' && trust(req.socket.remoteAddress ?? '', 0);
}

const PEM = /^-----BEGIN CERTIFICATE-----([^-]*)-----END CERTIFICATE-----$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The DER in a forwarded header's value: URL-encoded PEM (nginx's `$ssl_client_escaped_cert`), or
 * base64 of the DER, URL-encoded or not (HAProxy's `ssl_c_der,base64`, Traefik's PEM without its
 * armour). Anything else is a 400 that names the header: the proxy is ours, so its mistake is said.
 */
function forwardedDer(value: string, header: string): Buffer {
  const bad = () =>
    estError(400, `The ${header} header does not hold one certificate (URL-encoded PEM, or base64 of its DER) (docs/guides/est.md).`);
  let text: string;
  try {
    text = decodeURIComponent(value).trim();
  } catch {
    throw bad();
  }
  const armoured = PEM.exec(text);
  const base64 = (armoured ? armoured[1] : text).replace(/\s+/g, '');
  if (!BASE64.test(base64) || base64.length % 4 !== 0) throw bad();
  const der = Buffer.from(base64, 'base64');
  try {
    parseCertificate(der);
  } catch (e) {
    if (e instanceof X509Error) throw bad();
    throw e;
  }
  return der;
}

/**
 * The certificate `req`'s client presented: its TLS client certificate; else, where `header` is
 * configured and the peer is a trusted proxy, the one the proxy forwarded; else null.
 */
export function presentedCertificate(req: Request, header: string | null): PresentedCertificate | null {
  const tls = tlsClientCertificate(req.socket);
  if (tls) return { der: tls, what: 'TLS client certificate' };
  if (header === null || !fromTrustedProxy(req)) return null;
  const raw = req.headers[header.toLowerCase()];
  if (raw === undefined || raw === '') return null;
  // Node joins a repeated header with ", ": two certificates, or one the proxy did not replace.
  if (Array.isArray(raw) || raw.includes(',')) throw estError(400, `The ${header} header was sent more than once.`);
  return { der: forwardedDer(raw, header), what: 'forwarded client certificate' };
}
