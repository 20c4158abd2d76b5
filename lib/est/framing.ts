/**
 * EST's bodies on the wire (RFC 7030 §4, as RFC 8951 corrected it): base64 of DER both ways.
 *
 * What is read is forgiving where clients differ: wrapped (LF or CRLF) or not, trailing whitespace,
 * with or without `Content-Transfer-Encoding: base64`. What is written suits the strictest client:
 * strongSwan's `pki` 5.9 decodes only unwrapped base64 and reads the answer in one go, so it gets one
 * line without a newline, with `Content-Length` (never chunked); `Content-Transfer-Encoding: base64`
 * is kept for old clients that look for it.
 */
import type { Response } from 'express';
import { HttpError } from '../http/http-errors';
import { sendPlainTextError } from '../http/plain-text-error';
import { certsOnlyPkcs7 } from '../x509/pkcs7';

/** RFC 7030 §3.2.3 names no realm; one of its own tells a client which password is asked for. */
export const EST_REALM = 'est';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** An EST failure: a status and a plain-text reason (RFC 7030 §4.2.3). */
export function estError(status: number, reason: string, headers: Record<string, string> = {}): HttpError {
  return new HttpError(status, reason, headers);
}

/**
 * How EST answers a failure: plain text with its status (`sendPlainTextError`), except 401, whose
 * body is empty (`Content-Length: 0`). Clients ask without credentials first and answer the
 * challenge; a widely used Java client closes the 401 without reading it and then fails on the body
 * it left unread, so that enrolment with a password never happens. `WWW-Authenticate` says all a
 * client needs.
 */
export function sendEstError(res: Response, error: HttpError): void {
  if (error.status !== 401) return sendPlainTextError(res, error);
  res.status(401);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', '0');
  res.end();
}

/** The DER a base64 body carries, or 400. */
export function decodeBase64Body(body: Buffer, what: string): Buffer {
  const text = body.toString('latin1').replace(/\s+/g, '');
  if (text.length === 0) throw estError(400, `The request has no ${what}: send it as base64 of its DER (RFC 7030 §4.2.1).`);
  if (!BASE64.test(text) || text.length % 4 !== 0) {
    throw estError(400, `The ${what} is not base64: send base64 of its DER (RFC 7030 §4.2.1).`);
  }
  return Buffer.from(text, 'base64');
}

/** A 200 with `der` as one line of base64. */
export function sendBase64(res: Response, contentType: string, der: Buffer): void {
  const body = Buffer.from(der.toString('base64'), 'latin1');
  res.status(200);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Transfer-Encoding', 'base64');
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}

/** One certificate as EST's enrolment operations answer it: base64 certs-only PKCS#7 (RFC 7030 §4.2.3). */
export function sendCertificate(res: Response, der: Buffer): void {
  sendBase64(res, 'application/pkcs7-mime; smime-type=certs-only', certsOnlyPkcs7([der]));
}

/** The boundary of `serverkeygen`'s answer: base64 never contains '-', so no part can contain it. */
const KEYGEN_BOUNDARY = 'est-serverkeygen';

/**
 * `serverkeygen`'s answer (RFC 7030 §4.4.2): `multipart/mixed` with the private key as base64 DER
 * PKCS#8 (`application/pkcs8`), then the certificate as base64 certs-only PKCS#7; lines end CRLF.
 * `Cache-Control: no-store`: no cache may keep the key.
 */
export function sendKeyAndCertificate(res: Response, pkcs8Der: Buffer, certificateDer: Buffer): void {
  const part = (contentType: string, der: Buffer) =>
    `--${KEYGEN_BOUNDARY}\r\nContent-Type: ${contentType}\r\nContent-Transfer-Encoding: base64\r\n\r\n${der.toString('base64')}\r\n`;
  const body = Buffer.from(
    part('application/pkcs8', pkcs8Der) +
      part('application/pkcs7-mime; smime-type=certs-only', certsOnlyPkcs7([certificateDer])) +
      `--${KEYGEN_BOUNDARY}--\r\n`,
    'latin1',
  );
  res.status(200);
  res.setHeader('Content-Type', `multipart/mixed; boundary=${KEYGEN_BOUNDARY}`);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}

/**
 * A request waiting for an operator (RFC 7030 §4.2.3): 202 with `Retry-After` in whole seconds (what
 * strongSwan parses) and a short text, with `Content-Length` as every answer here.
 */
export function sendPending(res: Response, retryAfterSeconds: number, requestId: number): void {
  const body = Buffer.from(`Enrolment request ${requestId} waits for approval; ask again later with the same request.\n`, 'utf8');
  res.status(202);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Retry-After', String(retryAfterSeconds));
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}
