/**
 * Why the enrolment core refuses a request, in terms every protocol can answer in its own way: EST
 * with an HTTP status and a text (RFC 7030 §4.2.3), SCEP with a signed FAILURE and its failInfo
 * (RFC 8894 §3.2.1.4.5). Nothing is issued when one is thrown.
 */

/** RFC 8894 §3.2.1.4.5's failInfo values that an enrolment refusal maps to. */
export type EnrolmentFailInfo = 'badRequest' | 'badCertId' | 'badMessageCheck' | 'badTime';

export class EnrolmentError extends Error {
  constructor(
    /** 400: the request cannot be signed; 403: not allowed; 404: nothing enrols here. */
    readonly status: 400 | 403 | 404,
    message: string,
    readonly failInfo: EnrolmentFailInfo = 'badRequest',
  ) {
    super(message);
    this.name = 'EnrolmentError';
  }
}
