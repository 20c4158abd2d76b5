/**
 * JSON output of the API handlers.
 *
 * Every response body goes through `serializeJson` (lib/http/send.ts), which writes bigint values —
 * e.g. an `authority_cert_serial_number` or an otherName INTEGER beyond 2^53 — as exact JSON integers
 * instead of failing (`JSON.stringify` throws on bigints) or rounding through `number`. Handlers build
 * their results with `ok(...)` so that the status, the body and any extra headers travel together.
 */
import type { ApiResult } from './route-types';
import { randomBytes } from 'crypto';
import { serializeJson } from '../http/send';

export { serializeJson };

/** A 200 response (every success of this API is a 200, docs/COMPATIBILITY.md §1.2). */
export function ok(body: unknown, headers?: Record<string, string>): ApiResult {
  return headers && Object.keys(headers).length ? { status: 200, body, headers } : { status: 200, body };
}

/**
 * A 200 with the JSON view of a record, its text built once per record object by `toText`. The
 * caches of the read paths hand out the same record object until it changes (a change means a new
 * object), so a view requested again costs no JSON building; the memo holds the record weakly, so it
 * goes with it.
 */
export function memoisedView<R extends object>(toText: (record: R) => string): (record: R) => ApiResult {
  const texts = new WeakMap<R, string>();
  return (record) => {
    let json = texts.get(record);
    if (json === undefined) {
      json = toText(record);
      texts.set(record, json);
    }
    return { status: 200, body: undefined, json };
  };
}

/** Parse JSON text keeping integers beyond 2^53 exact (bigint), for tests and clients of ours. */
export function parseJsonExact(text: string): unknown {
  // Mark unsafe integers (outside strings) before JSON.parse can round them; a random tag per call,
  // so that no string in the data can pose as a marker.
  const tag = `${randomBytes(9).toString('base64url')}:`;
  const marked = text.replace(/("(?:[^"\\]|\\.)*")|(-?\d{16,})(?![.eE\d])/g, (m, str: string | undefined, num: string | undefined) => {
    if (str !== undefined || num === undefined) return m;
    return Number.isSafeInteger(Number(num)) ? num : `"${tag}${num}"`;
  });
  return JSON.parse(marked, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(tag) ? BigInt(value.slice(tag.length)) : value,
  );
}
