/**
 * SCEP over HTTP (RFC 8894 §4.1): what the query string and the body carry, read as every deployed
 * client sends them, and the answers' framing.
 *
 * A GET's `message` is base64 that clients encode differently: micromdm's scepclient uses the URL-safe
 * alphabet, strongSwan percent-encodes `+` and breaks lines with `%0A`, macOS leaves `+` and `/` as
 * they are. So it is taken from the raw query string (a query parser would turn `+` into a space),
 * percent-decoded without touching `+`, stripped of whitespace, mapped to the standard alphabet and
 * decoded with or without its padding. A POST's body is the DER itself, whatever its Content-Type.
 */
import type { Response } from 'express';
import { HttpError } from '../http/http-errors';

/** A SCEP failure before any CertRep can be signed: a status and a plain-text reason. */
export function scepError(status: number, reason: string, headers: Record<string, string> = {}): HttpError {
  return new HttpError(status, reason, headers);
}

/** The raw (still percent-encoded) value of `name` in `rawQuery` (the text after `?`), or null. */
export function rawQueryValue(rawQuery: string, name: string): string | null {
  for (const pair of rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (key === name) return eq < 0 ? '' : pair.slice(eq + 1);
  }
  return null;
}

/** The DER a GET's `message` carries; 400 when it is not base64 of anything. */
export function decodeMessage(raw: string): Buffer {
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    throw scepError(400, 'The message parameter is not percent-encoded correctly.');
  }
  const base64 = text.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (base64.length === 0 || !/^[A-Za-z0-9+/]*$/.test(base64) || base64.length % 4 === 1) {
    throw scepError(400, 'The message parameter is not base64 of a PKCS#7 message (RFC 8894 §4.3).');
  }
  return Buffer.from(base64, 'base64');
}

/** A 200 with `body` as `contentType`, with its length. */
export function sendScep(res: Response, contentType: string, body: Buffer): void {
  res.status(200);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}
