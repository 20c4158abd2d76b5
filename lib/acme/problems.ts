/**
 * ACME error answers (RFC 8555 §6.7): problem documents (RFC 7807) whose `type` is one of the URNs
 * `urn:ietf:params:acme:error:<name>`. Everything of lib/acme that refuses a request throws an
 * `AcmeProblem`, so the module to come has one thing to turn into a response
 * (`Content-Type: application/problem+json`, `status`, `body()`).
 */

/** The error names of RFC 8555 §6.7 (table "Error Types"). */
export const ACME_ERROR_TYPES = [
  'accountDoesNotExist',
  'alreadyRevoked',
  'badCSR',
  'badNonce',
  'badPublicKey',
  'badRevocationReason',
  'badSignatureAlgorithm',
  'caa',
  'compound',
  'connection',
  'dns',
  'externalAccountRequired',
  'incorrectResponse',
  'invalidContact',
  'malformed',
  'orderNotReady',
  'rateLimited',
  'rejectedIdentifier',
  'serverInternal',
  'tls',
  'unauthorized',
  'unsupportedContact',
  'unsupportedIdentifier',
  'userActionRequired',
] as const;

/**
 * The RFC's names, plus `not-found`: the original answers an unknown CA (and we an unknown object)
 * with `urn:ietf:params:acme:error:not-found` and 404, which clients configured for it know.
 */
export type AcmeErrorType = (typeof ACME_ERROR_TYPES)[number] | 'not-found';

export const ACME_ERROR_NAMESPACE = 'urn:ietf:params:acme:error:';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** One identifier's own error inside a compound problem (RFC 8555 §6.7.1). */
export interface AcmeSubproblem {
  type: AcmeErrorType;
  detail?: string;
  identifier?: { type: string; value: string };
}

export interface AcmeProblemBody {
  type: string;
  status: number;
  detail: string;
  /** The `alg` values the server accepts, with badSignatureAlgorithm (RFC 8555 §6.2). */
  algorithms?: string[];
  subproblems?: { type: string; detail?: string; identifier?: { type: string; value: string } }[];
}

export class AcmeProblem extends Error {
  readonly type: AcmeErrorType;
  readonly status: number;
  readonly detail: string;
  readonly algorithms?: readonly string[];
  readonly subproblems?: readonly AcmeSubproblem[];

  constructor(
    type: AcmeErrorType,
    status: number,
    detail: string,
    extra: { algorithms?: readonly string[]; subproblems?: readonly AcmeSubproblem[] } = {},
  ) {
    super(detail);
    this.name = 'AcmeProblem';
    this.type = type;
    this.status = status;
    this.detail = detail;
    if (extra.algorithms) this.algorithms = [...extra.algorithms];
    if (extra.subproblems) this.subproblems = extra.subproblems.map((s) => ({ ...s }));
  }

  /** The problem document (RFC 7807 members, plus RFC 8555's `algorithms` and `subproblems`). */
  body(): AcmeProblemBody {
    const body: AcmeProblemBody = { type: ACME_ERROR_NAMESPACE + this.type, status: this.status, detail: this.detail };
    if (this.algorithms) body.algorithms = [...this.algorithms];
    if (this.subproblems) {
      body.subproblems = this.subproblems.map((s) => ({ ...s, type: ACME_ERROR_NAMESPACE + s.type }));
    }
    return body;
  }

  toJSON(): AcmeProblemBody {
    return this.body();
  }
}

// The constructors of the problems the JWS layer raises; the status codes are RFC 8555's (§6.5 for
// badNonce, §6.2 for badSignatureAlgorithm, §7.3.1 for accountDoesNotExist, all "400 Bad Request").
export const malformed = (detail: string): AcmeProblem => new AcmeProblem('malformed', 400, detail);
export const badNonce = (detail: string): AcmeProblem => new AcmeProblem('badNonce', 400, detail);
export const badPublicKey = (detail: string): AcmeProblem => new AcmeProblem('badPublicKey', 400, detail);
export const badSignatureAlgorithm = (detail: string, algorithms: readonly string[]): AcmeProblem =>
  new AcmeProblem('badSignatureAlgorithm', 400, detail, { algorithms });
export const unauthorized = (detail: string): AcmeProblem => new AcmeProblem('unauthorized', 403, detail);
export const accountDoesNotExist = (detail: string): AcmeProblem => new AcmeProblem('accountDoesNotExist', 400, detail);
export const serverInternal = (detail: string): AcmeProblem => new AcmeProblem('serverInternal', 500, detail);
export const notFound = (detail: string): AcmeProblem => new AcmeProblem('not-found', 404, detail);
export const badCsr = (detail: string): AcmeProblem => new AcmeProblem('badCSR', 400, detail);
// RFC 8555 §7.4: finalize before every authorization is valid.
export const orderNotReady = (detail: string): AcmeProblem => new AcmeProblem('orderNotReady', 403, detail);
export const rejectedIdentifier = (detail: string, subproblems?: AcmeSubproblem[]): AcmeProblem =>
  new AcmeProblem('rejectedIdentifier', 400, detail, subproblems ? { subproblems } : {});
export const unsupportedIdentifier = (detail: string): AcmeProblem => new AcmeProblem('unsupportedIdentifier', 400, detail);
export const invalidContact = (detail: string): AcmeProblem => new AcmeProblem('invalidContact', 400, detail);
export const unsupportedContact = (detail: string): AcmeProblem => new AcmeProblem('unsupportedContact', 400, detail);
export const alreadyRevoked = (detail: string): AcmeProblem => new AcmeProblem('alreadyRevoked', 400, detail);
export const badRevocationReason = (detail: string): AcmeProblem => new AcmeProblem('badRevocationReason', 400, detail);
export const externalAccountRequired = (detail: string): AcmeProblem => new AcmeProblem('externalAccountRequired', 400, detail);
// RFC 8555 §6.6: 429 with Retry-After (the mount adds it from `retryAfterSeconds`).
export const rateLimited = (detail: string): AcmeProblem => new AcmeProblem('rateLimited', 429, detail);

/**
 * A value from a request, quoted for a problem's detail: JSON-quoted so that it reads unambiguously,
 * and cut short so that a client cannot make the server echo kilobytes back.
 */
export function quoted(value: unknown, max = 40): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : typeof value;
  return text.length > max ? `${text.slice(0, max - 2)}…"` : text;
}

/** `problem` with the `Retry-After` seconds the module writes (RFC 8555 §6.6), for a wait of `ms`. */
export function withRetryAfter(problem: AcmeProblem, ms: number): AcmeProblem {
  return Object.assign(problem, { retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) });
}
