/**
 * Answers, for every way in: JSON (errors included) and content of a given type (certificates, CRLs,
 * OCSP responses, the API docs). Every answer carries `X-Content-Type-Options: nosniff`, so that no
 * browser reads it as another type.
 *
 * `Cache-Control`: a JSON answer is `no-store` unless the caller set something else (answers of the
 * REST API are per user and may be sensitive, docs/reference/options.md); content answers carry what the
 * caller gives (a CRL may be cached for a minute, a CA certificate for an hour, an OCSP response not
 * at all; docs/guides/revocation.md).
 */
import type { Response } from 'express';
import { exactJsonText } from '../x509/certificate-json';
import type { HttpError } from './http-errors';

/** JSON text of a response body; bigints (serials beyond 2^53) become exact integers (lib/api/serialize.ts). */
export const serializeJson = exactJsonText;

/** Status and headers of a JSON answer, before its body is written (whole, or streamed: lib/api/json-stream.ts). */
export function writeJsonHead(res: Response, status: number, headers: Record<string, string> = {}): void {
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
}

/** A JSON answer; `json` is the body's text when it is already serialised. */
export function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}, json?: string | Buffer): void {
  writeJsonHead(res, status, headers);
  res.end(json ?? serializeJson(body));
}

/** An error as its JSON answer (`{"detail": ...}` with its status and headers). */
export function sendError(res: Response, error: HttpError): void {
  sendJson(res, error.status, error.body, error.headers);
}

/** A 200 with `body` as `type` (e.g. `application/pkix-crl`), and the caller's headers. */
export function sendContent(res: Response, type: string, body: Buffer | string, headers: Record<string, string> = {}): void {
  res.status(200);
  res.setHeader('Content-Type', type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(body);
}

/** A 304 for a conditional request whose `If-None-Match` names the current version (RFC 9110 §13.1.2). */
export function sendNotModified(res: Response, headers: Record<string, string>): void {
  res.status(304);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end();
}
