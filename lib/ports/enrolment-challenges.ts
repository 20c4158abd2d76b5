/**
 * Part of `Store`, for device enrolment (docs/guides/scep.md), as `store.enrolment`:
 *
 * - one-time challenges, kept as the SHA-256 of the secret with the endpoint, the names they are bound
 *   to and their expiry, used once in the transaction that stores the certificate;
 * - the transactions answered: a request repeated with the same transaction and key (a client that
 *   lost the answer, micromdm's re-sent PKCSReq) gets the certificate it got before, not a second one.
 */
import type { Name } from '../x509/types';
import type { CertificateRecord, NewCertificate } from './records';

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

/** What names a device's request across its repetitions (SCEP: the transactionID and the CSR's key). */
export interface EnrolmentTransactionKey {
  protocol: string;
  label: string;
  transactionId: string;
  /** Lower-case hex SHA-256 of what else makes the request the same (SCEP: the signer certificate, then the CSR). */
  publicKeySha256: string;
}

export interface EnrolmentStore {
  createEnrolmentChallenge(challenge: NewEnrolmentChallenge): Promise<EnrolmentChallengeRecord>;
  /** The challenge whose secret hashes to `secretSha256`, used or not, or null. */
  findEnrolmentChallenge(secretSha256: string): Promise<EnrolmentChallengeRecord | null>;
  /**
   * Mark it used for `certificateSerial` (null: by a request that waits for approval); false when it
   * was used already (another request won).
   */
  useEnrolmentChallenge(id: number, certificateSerial: string | null, at: Date): Promise<boolean>;
  /** The certificate a transaction was answered with, or null. */
  findEnrolmentTransaction(key: EnrolmentTransactionKey): Promise<{ caId: number; certificateSerial: string } | null>;
  /** Record the answer of a transaction; false when one was recorded already (a repetition raced it). */
  recordEnrolmentTransaction(key: EnrolmentTransactionKey, answer: { caId: number; certificateSerial: string }): Promise<boolean>;
  /**
   * Store `certificate` as the answer of `key`, both or neither, in one write: the stored record, or
   * null (nothing stored) when the transaction was answered already (a repetition raced it).
   */
  insertAnsweringCertificate(key: EnrolmentTransactionKey, certificate: NewCertificate): Promise<CertificateRecord | null>;
}

export interface EnrolmentStoreProvider {
  readonly enrolment: EnrolmentStore;
}
