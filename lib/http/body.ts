/**
 * Request bodies, for every way in: raw bytes with a size limit (an OCSP request, say), or JSON.
 *
 * The body is read by us, when the module decides (the REST API after authentication, so an
 * anonymous client cannot make us buffer megabytes), with the size limit enforced while it arrives.
 * JSON: strict UTF-8, nesting deeper than `MAX_JSON_DEPTH` refused (so that no walker over the value
 * — ours, ajv's, the engine's — can exhaust the stack, whoever parsed the body), then parsed.
 * Content-Type is ignored, as upstream (docs/COMPATIBILITY.md §1.2).
 */
import { isUtf8 } from 'buffer';
import type { Request } from 'express';
import { ClientGoneError, isRequestAborted } from './client-gone';
import { cannotParseBody, jsonTooDeep, payloadTooLarge, type HttpError } from './http-errors';
import { closeAfterAnswer } from './lingering-close';

/** Marker for "the request had no body" (zero bytes), which upstream treats like a missing body. */
export const NO_BODY: unique symbol = Symbol('no body');
export type ParsedBody = unknown | typeof NO_BODY;

/**
 * A body over its limit is refused: whatever the answer (413, an OCSP `malformedRequest`, an ACME
 * problem), the connection closes after it, gracefully, so that a client still sending reads it
 * (lib/http/lingering-close.ts).
 */
function refuse(req: Request, limit: number): HttpError {
  closeAfterAnswer(req);
  return payloadTooLarge(limit);
}

/**
 * Read the request body, rejecting it with 413 as soon as it exceeds `limit` bytes, and with a
 * `ClientGoneError` when the client hangs up before it is complete (lib/http/client-gone.ts).
 */
export function readRawBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(refuse(req, limit));
  // The address now: once the client is gone, its socket no longer says.
  const address = req.ip ?? req.socket?.remoteAddress ?? null;
  // Gone before we began reading (while it was authenticated, say): no event will come.
  if (req.destroyed && !req.complete) return Promise.reject(new ClientGoneError(address));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: unknown, value?: Buffer): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) {
        // Let the rest of the body flow into nothing, so the connection stays usable.
        req.resume();
        reject(error);
      } else resolve(value as Buffer);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) finish(refuse(req, limit));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(null, Buffer.concat(chunks));
    const onError = (e: unknown): void => finish(isRequestAborted(e) ? new ClientGoneError(address) : e);
    // Closed before its end (the client went away): no 'error' need come first.
    const onClose = (): void => {
      if (!req.complete) finish(new ClientGoneError(address));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * How deeply arrays and objects may nest in a request body. The deepest value of the API (certificate
 * policies with a notice reference in a sign request) nests 9 levels; 64 leaves room for any future
 * field, while keeping recursive code far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests arrays/objects deeper than `max`: one pass over the text, before `JSON.parse`. */
export function jsonTextExceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character (so `\"` does not end the string).
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether a parsed value nests arrays/objects deeper than `max`; iterative, so any depth (or a cycle) is safe. */
export function valueExceedsDepth(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Parse body bytes as JSON. Zero bytes → `NO_BODY`; not UTF-8, not JSON or nested too deeply → 400. */
export function parseJson(raw: Buffer | string): ParsedBody {
  if (raw.length === 0) return NO_BODY;
  if (typeof raw !== 'string' && !isUtf8(raw)) throw cannotParseBody();
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.trim() === '') throw cannotParseBody();
  // Before JSON.parse, which need not be iterative either.
  if (jsonTextExceedsDepth(text, MAX_JSON_DEPTH)) throw jsonTooDeep(MAX_JSON_DEPTH);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw cannotParseBody();
  }
}

/**
 * The body of a request, whether we read it or a body parser of the host app already did
 * (`express.json()`, `express.text()`, `express.raw()` in front of the router).
 */
export async function readJsonBody(req: Request, limit: number): Promise<ParsedBody> {
  const consumed = req.readableEnded || (req as Request & { _body?: boolean })._body === true;
  if (consumed) {
    const body: unknown = req.body;
    if (body === undefined) return NO_BODY;
    if (Buffer.isBuffer(body) || typeof body === 'string') return parseJson(body);
    if (valueExceedsDepth(body, MAX_JSON_DEPTH)) throw jsonTooDeep(MAX_JSON_DEPTH);
    return body;
  }
  return parseJson(await readRawBody(req, limit));
}
