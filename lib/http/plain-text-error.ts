/**
 * An error answered as plain text: its status, its headers and its reason on one line, with
 * `Content-Length` (never chunked: strongSwan's pki reads a reply in one go) — how EST (RFC 7030
 * §4.2.3: a human-readable reason) and SCEP (before a CertRep can be signed) answer errors, through
 * the error catch's `send`.
 */
import type { Response } from 'express';
import type { HttpError } from './http-errors';

export function sendPlainTextError(res: Response, error: HttpError): void {
  const body = Buffer.from(`${error.message}\n`, 'utf8');
  res.status(error.status);
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}
