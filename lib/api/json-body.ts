/**
 * JSON in and out of the API.
 *
 * In: read the raw body ourselves (after authentication, so an anonymous client cannot make us buffer
 * megabytes), enforce the size limit, decode strict UTF-8, parse. Content-Type is ignored, as upstream
 * (docs/COMPATIBILITY.md §1.2). Out: `JSON.stringify`, except that bigints (otherName INTEGER values, serial numbers
 * beyond 2^53) are written as exact JSON integers.
 */
import { isUtf8 } from 'buffer';
import { randomBytes } from 'crypto';
import type { Request } from 'express';
import { cannotParseBody, payloadTooLarge, type Loc } from './http-errors';

/** Marker for "the request had no body" (zero bytes), which upstream treats like a missing body. */
export const NO_BODY: unique symbol = Symbol('no body');
export type ParsedBody = unknown | typeof NO_BODY;

/** Read the request body, rejecting it with 413 as soon as it exceeds `limit` bytes. */
export function readRawBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(payloadTooLarge(limit));
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
      if (error) {
        // Let the rest of the body flow into nothing, so the connection stays usable.
        req.resume();
        reject(error);
      } else resolve(value as Buffer);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) finish(payloadTooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(null, Buffer.concat(chunks));
    const onError = (e: unknown): void => finish(e);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Parse body bytes as JSON. Zero bytes → `NO_BODY`; not UTF-8 or not JSON → 400. */
export function parseJson(raw: Buffer | string): ParsedBody {
  if (raw.length === 0) return NO_BODY;
  if (typeof raw !== 'string' && !isUtf8(raw)) throw cannotParseBody();
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.trim() === '') throw cannotParseBody();
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
    return body;
  }
  return parseJson(await readRawBody(req, limit));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `String.prototype.isWellFormed` (ES2024), spelled out for the ES2022 lib. */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/**
 * Locations of strings (values or keys) holding a lone UTF-16 surrogate, which no JSON encoder can
 * write back as UTF-8 and no database column can store (D16). `JSON.parse` accepts `"\ud800"`.
 */
export function findLoneSurrogates(value: unknown, loc: Loc = []): Loc[] {
  if (typeof value === 'string') return isWellFormed(value) ? [] : [loc];
  if (Array.isArray(value)) return value.flatMap((v, i) => findLoneSurrogates(v, [...loc, i]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => (isWellFormed(k) ? findLoneSurrogates(v, [...loc, k]) : [[...loc, k]]));
  }
  return [];
}

/** JSON text of a response body; bigints become exact integers. */
export function serializeJson(value: unknown): string {
  // Bigints are rare (huge serial-number INTEGERs in a few extensions): try the plain, fast
  // JSON.stringify first; it throws a TypeError only when it meets one.
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  const marks: string[] = [];
  // A random tag per call, so that no string in the data can pose as a placeholder.
  const tag = randomBytes(9).toString('base64url');
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    marks.push(v.toString());
    return `${tag}:${marks.length - 1}`;
  });
  return text.replace(new RegExp(`"${tag}:(\\d+)"`, 'g'), (_m, i: string) => marks[Number(i)]);
}
