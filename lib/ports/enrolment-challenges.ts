/**
 * Optional store capability: one-time enrolment challenges (README "SCEP") — kept as the SHA-256 of
 * the secret, with the endpoint, the names they are bound to and their expiry; used once, in the
 * transaction that stores the certificate they were used for.
 */
import type { Name } from '../x509/types';

export interface NewEnrolmentChallenge {
  /** The way in (`scep`). */
  protocol: string;
  /** The endpoint's label; '' for the URLs without one. */
  label: string;
  /** Lower-case hex SHA-256 of the secret. */
  secretSha256: string;
  /** The subject a CSR must ask for exactly, or null. */
  subject: Name | null;
  /** The subjectAltNames a CSR must ask for (API JSON general names), or null. */
  san: { type: string; value: string }[] | null;
  expires: Date;
}

export interface EnrolmentChallengeRecord extends NewEnrolmentChallenge {
  id: number;
  created: Date;
  /** When it was used; null while it is not. */
  used: Date | null;
  certificateSerial: string | null;
}

export interface EnrolmentChallengeStore {
  createEnrolmentChallenge(challenge: NewEnrolmentChallenge): Promise<EnrolmentChallengeRecord>;
  /** The challenge whose secret hashes to `secretSha256`, used or not, or null. */
  findEnrolmentChallenge(secretSha256: string): Promise<EnrolmentChallengeRecord | null>;
  /** Mark it used for `certificateSerial`; false when it was used already (another request won). */
  useEnrolmentChallenge(id: number, certificateSerial: string, at: Date): Promise<boolean>;
}

export function hasEnrolmentChallengeStore<S extends object>(store: S): store is S & EnrolmentChallengeStore {
  const s = store as Partial<EnrolmentChallengeStore>;
  return (
    typeof s.createEnrolmentChallenge === 'function' &&
    typeof s.findEnrolmentChallenge === 'function' &&
    typeof s.useEnrolmentChallenge === 'function'
  );
}
