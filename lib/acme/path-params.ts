/** The path parameters of the ACME endpoints (docs/guides/acme.md), for the shared matcher (lib/http/path-matcher.ts). */
import { sanitizeSerial, type ParamKinds } from '../http/path-matcher';

export const ACME_PATH_PARAMS: ParamKinds = {
  // The CA's serial as the original's URLs carry it: upper-case hex, colons allowed.
  serial: { pattern: '[0-9A-F:]+', convert: sanitizeSerial },
  // An object's slug: the store makes 12 characters of [a-zA-Z0-9].
  slug: { pattern: '[a-zA-Z0-9]{1,32}' },
  // ARI's certificate identifier (RFC 9773 §4.1): base64url "." base64url.
  cert_id: { pattern: '[A-Za-z0-9_-]{1,200}\\.[A-Za-z0-9_-]{1,200}' },
};
