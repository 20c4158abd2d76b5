/**
 * Part of `Store`, for requests that wait for an operator (docs/guides/est.md, docs/guides/scep.md: an endpoint
 * with `approval`), as `store.enrolmentRequests`. A device's request is kept with its CSR, who asked,
 * and the key its repetitions share (SCEP: the transactionID and the signer's key; EST: the
 * authenticated identity and the CSR's key), so that a repetition finds it instead of making a second
 * one; an operator approves it (the certificate it got) or refuses it (the reason), once.
 */
import type { Actor } from './events';

export type EnrolmentRequestStatus = 'pending' | 'approved' | 'refused';

export interface NewEnrolmentRequest {
  /** The way in: `est` or `scep`. */
  protocol: string;
  /** The endpoint's label; '' for the URLs without one. */
  label: string;
  caId: number;
  /** The profile the endpoint signs with. */
  profile: string;
  /** The endpoint's validity in days (null: the profile's), applied when the request is approved. */
  validityDays: number | null;
  /** The PKCS#10 as the device sent it (DER). */
  csrDer: Buffer;
  /** Who asked: the requester of the certificate once it is approved. */
  requester: Actor;
  /** Lower-case hex SHA-256 of what makes a repetition the same request (lib/enrolment/approval.ts). */
  requestKey: string;
}

export interface EnrolmentRequestRecord extends NewEnrolmentRequest {
  id: number;
  status: EnrolmentRequestStatus;
  /** The certificate issued on approval; null otherwise. */
  certificateSerial: string | null;
  /** Why it was refused; null otherwise. */
  reason: string | null;
  created: Date;
  /** When and by whom it was approved or refused; null while it waits. */
  decided: Date | null;
  decidedBy: Actor | null;
}

/** What an operator decided: approved with the certificate it got, or refused with a reason. */
export type EnrolmentDecision = { status: 'approved'; certificateSerial: string } | { status: 'refused'; reason: string };

export interface EnrolmentRequestFilter {
  status?: EnrolmentRequestStatus;
  caId?: number;
  /** At most this many, newest first. Default 100. */
  limit?: number;
}

export interface EnrolmentRequestStore {
  /** Keep a new request; null when one with the same protocol, label and key exists (a repetition raced it). */
  createEnrolmentRequest(request: NewEnrolmentRequest): Promise<EnrolmentRequestRecord | null>;
  getEnrolmentRequest(id: number): Promise<EnrolmentRequestRecord | null>;
  findEnrolmentRequest(protocol: string, label: string, requestKey: string): Promise<EnrolmentRequestRecord | null>;
  listEnrolmentRequests(filter?: EnrolmentRequestFilter): Promise<EnrolmentRequestRecord[]>;
  /** Record `decision` by `by` if the request still waits; false when it was decided already. */
  decideEnrolmentRequest(id: number, decision: EnrolmentDecision, by: Actor, at: Date): Promise<boolean>;
}

export interface EnrolmentRequestStoreProvider {
  readonly enrolmentRequests: EnrolmentRequestStore;
}
