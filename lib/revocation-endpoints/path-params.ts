/**
 * The path parameters of the revocation endpoints (docs/guides/revocation.md), for the shared
 * matcher (lib/http/path-matcher.ts).
 */
import { sanitizeSerial, type ParamKinds } from '../http/path-matcher';

export const REVOCATION_PATH_PARAMS: ParamKinds = {
  // A CA's serial as certificates carry it in their URLs: hex, colons allowed, any case (docs/reference/differences.md D7).
  // Unlike the REST API's, an encoded NUL does not match: there is no 422 to give here, only 404.
  serial: { pattern: '[0-9A-Fa-f:]+', convert: sanitizeSerial },
  // An OCSP request in the path (RFC 6960 Appendix A.1): base64, whose alphabet includes '/', possibly
  // percent-encoded. Kept as sent: decoding it, and answering `malformedRequest` when it cannot be
  // decoded, is the handler's (lib/revocation-endpoints/handlers/ocsp.ts).
  request: { pattern: '.+' },
};
