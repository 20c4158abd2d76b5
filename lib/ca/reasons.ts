/**
 * Revocation reasons (docs/COMPATIBILITY.md §2.3). The original API accepts the camelCase names of
 * RFC 5280 and stores the snake_case enum names; the CLI takes snake_case. We accept both everywhere
 * (docs/reference/differences.md D13) and always store/report snake_case.
 */

import { CRL_REASON_CODES } from '../x509/revocation/reasons';

/** snake_case name → RFC 5280 CRLReason code (§5.3.1). */
export const REVOCATION_REASON_CODES = CRL_REASON_CODES;

export type RevocationReason = keyof typeof REVOCATION_REASON_CODES;

/** camelCase (API input of the original) → snake_case. */
const CAMEL_CASE: Readonly<Record<string, RevocationReason>> = {
  unspecified: 'unspecified',
  keyCompromise: 'key_compromise',
  cACompromise: 'ca_compromise',
  affiliationChanged: 'affiliation_changed',
  superseded: 'superseded',
  cessationOfOperation: 'cessation_of_operation',
  certificateHold: 'certificate_hold',
  removeFromCRL: 'remove_from_crl',
  privilegeWithdrawn: 'privilege_withdrawn',
  aACompromise: 'aa_compromise',
};

/** The snake_case names, in RFC code order (for help texts and schema enums). */
export const REVOCATION_REASONS = Object.keys(REVOCATION_REASON_CODES) as RevocationReason[];

/** Every accepted input spelling (camelCase first, as the original's schema lists them). */
export const REVOCATION_REASON_INPUTS: readonly string[] = [
  ...Object.keys(CAMEL_CASE),
  ...REVOCATION_REASONS.filter((r) => !(r in CAMEL_CASE)),
];

/** snake_case name for an accepted spelling, or null when the text is no reason. */
export function normaliseRevocationReason(input: string): RevocationReason | null {
  if (Object.prototype.hasOwnProperty.call(REVOCATION_REASON_CODES, input)) return input as RevocationReason;
  return Object.prototype.hasOwnProperty.call(CAMEL_CASE, input) ? CAMEL_CASE[input] : null;
}
