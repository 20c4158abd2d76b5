/** CRLReason codes (RFC 5280 §5.3.1), by the snake_case names the store and the API use. */
export const CRL_REASON_CODES = {
  unspecified: 0,
  key_compromise: 1,
  ca_compromise: 2,
  affiliation_changed: 3,
  superseded: 4,
  cessation_of_operation: 5,
  certificate_hold: 6,
  remove_from_crl: 8,
  privilege_withdrawn: 9,
  aa_compromise: 10,
} as const;

export type CrlReason = keyof typeof CRL_REASON_CODES;

/** The code of a stored reason; `''` and unknown names count as `unspecified` (0). */
export function crlReasonCode(reason: string): number {
  return Object.prototype.hasOwnProperty.call(CRL_REASON_CODES, reason) ? CRL_REASON_CODES[reason as CrlReason] : 0;
}
