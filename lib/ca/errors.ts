/**
 * Errors of the CA rules layer.
 *
 * Bad API/CLI input that a schema could have caught is reported as `X509Error('validation')` with
 * issues (the API turns it into a 422). Everything else the rules refuse — an unknown CA, a revoked
 * certificate, a CA that cannot sign — is a `CaError` with a `code` the callers map to a status code
 * (API) or simply print (CLI). Messages are written for the operator and never contain key material.
 */

export type CaErrorCode =
  | 'not-found' // no CA / certificate / profile of that name or serial
  | 'ambiguous' // more than one match for a CLI argument
  | 'conflict' // state forbids it: already revoked, name taken, ...
  | 'invalid' // input is well-formed but breaks a rule (expires after the CA, ...)
  | 'key'; // the CA's private key is absent or unusable

export class CaError extends Error {
  readonly code: CaErrorCode;
  /**
   * The API's wording of the same refusal where it differs from the operator's (the API keeps the
   * original's messages, e.g. `The certificate is already revoked.`); absent → `message`.
   */
  readonly apiDetail?: string;

  constructor(code: CaErrorCode, message: string, options: { apiDetail?: string } = {}) {
    super(message);
    this.name = 'CaError';
    this.code = code;
    if (options.apiDetail !== undefined) this.apiDetail = options.apiDetail;
  }
}

/** A CA or certificate that the caller may not see is reported exactly like one that does not exist. */
export function notFoundError(what = 'Not found.'): CaError {
  return new CaError('not-found', what);
}
