/**
 * Part of `Store`, for device enrolment (docs/guides/est.md, docs/guides/scep.md), as `store.enrolmentEndpoints`:
 * enrolment endpoints kept in the database and managed with `ca-admin *_enrolment_endpoint(s)`, beside
 * those of the code's options (`est.labels`, `scep.labels`), which win for their label.
 *
 * An endpoint is one (protocol, label): the label is a path segment (never '' — the URLs without a
 * label stay with the options). Its static challenge is kept only as the SHA-256 of the secret, which
 * is shown once when it is set (as a one-time challenge's: lib/ports/enrolment-challenges.ts).
 */

export type EnrolmentProtocol = 'EST' | 'SCEP';

/** The names an endpoint issues for (docs/guides/est.md): entries as a CA's ACME name policy's; null subjectAttributes: any. */
export interface EnrolmentNamePolicy {
  /** DNS suffixes and IP networks a name must be covered by (empty: every name not denied). */
  allow: string[];
  /** DNS suffixes and IP networks no name may be covered by. */
  deny: string[];
  /** The subject attribute types a request may carry, by alias (`CN`), long name or dotted OID; null: any. */
  subjectAttributes: string[] | null;
}

export interface NewStoredEnrolmentEndpoint {
  protocol: EnrolmentProtocol;
  /** One path segment, never ''. */
  label: string;
  /** The CA's id. */
  caId: number;
  /** The profile; null: the router's default. */
  profile: string | null;
  /** Lower-case hex SHA-256 of the static challenge; null: none (one-time challenges only). */
  challengeSha256: string | null;
  /** Requests wait for an operator. */
  approval: boolean;
  /** The name policy; null: any name. */
  names: EnrolmentNamePolicy | null;
  /** Validity of the certificates in days; null: the profile's or the CA's default. */
  validityDays: number | null;
  /** At most this many enrolment requests a minute, per process (migration 0027); null: no limit. */
  requestsPerMinute: number | null;
  /**
   * Challenges neither static nor one-time go to the challenge webhook of the router's options for
   * the protocol (`est.challengeWebhook`, `scep.challengeWebhook`); its URL and secret are never kept here.
   */
  challengeWebhook: boolean;
  enabled: boolean;
}

export interface StoredEnrolmentEndpoint extends NewStoredEnrolmentEndpoint {
  id: number;
  created: Date;
  updated: Date;
}

/** What an edit may change: everything but the protocol and the label. */
export type StoredEnrolmentEndpointPatch = Partial<Omit<NewStoredEnrolmentEndpoint, 'protocol' | 'label'>>;

export interface EnrolmentEndpointStore {
  /** A StoreConflictError when the protocol already has the label. */
  createEnrolmentEndpoint(endpoint: NewStoredEnrolmentEndpoint): Promise<StoredEnrolmentEndpoint>;
  /** The endpoint of `protocol` labelled `label` (enabled or not), or null: one indexed lookup, the request path's. */
  findEnrolmentEndpoint(protocol: EnrolmentProtocol, label: string): Promise<StoredEnrolmentEndpoint | null>;
  /** Every endpoint, by protocol and label. */
  listEnrolmentEndpoints(): Promise<StoredEnrolmentEndpoint[]>;
  /** The endpoint as changed, or null when there is none. */
  updateEnrolmentEndpoint(
    protocol: EnrolmentProtocol,
    label: string,
    patch: StoredEnrolmentEndpointPatch,
  ): Promise<StoredEnrolmentEndpoint | null>;
  /** False when there was none. */
  deleteEnrolmentEndpoint(protocol: EnrolmentProtocol, label: string): Promise<boolean>;
}

export interface EnrolmentEndpointStoreProvider {
  readonly enrolmentEndpoints: EnrolmentEndpointStore;
}
