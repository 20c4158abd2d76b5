/**
 * Why the enrolment core refuses a request, in terms every protocol can answer in its own way: EST
 * with an HTTP status and a text (RFC 7030 §4.2.3), SCEP with a signed FAILURE and its failInfo
 * (RFC 8894 §3.2.1.4.5). Nothing is issued when one is thrown.
 */

/** RFC 8894 §3.2.1.4.5's failInfo values that an enrolment refusal maps to. */
export type EnrolmentFailInfo = 'badRequest' | 'badCertId' | 'badMessageCheck' | 'badTime';

export class EnrolmentError extends Error {
  constructor(
    /** 400: the request cannot be signed; 403: not allowed; 404: nothing enrols here; 429: over the endpoint's budget. */
    readonly status: 400 | 403 | 404 | 429,
    message: string,
    readonly failInfo: EnrolmentFailInfo = 'badRequest',
    /** With 429: the seconds until the endpoint takes a request again (`Retry-After`). */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'EnrolmentError';
  }
}

/** The `Retry-After` header of a refusal over an endpoint's budget (RFC 6585 §4); none for the others. */
export function retryAfter(error: EnrolmentError): Record<string, string> {
  return error.retryAfterSeconds === null ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
}
