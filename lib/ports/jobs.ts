/**
 * Background jobs (docs/DESIGN.md "Background jobs"): one table of work for every kind that runs later
 * or again — a kind, the reference it works on, when it may run next, its failed attempts, the lease
 * of the runner working on it and the last error. The runner (lib/work/jobs-runner.ts) claims due jobs
 * of the kinds it has handlers for and settles each with one of the calls below; every settling call
 * takes the lease it was claimed with and does nothing (false) when that lease is no longer held — a
 * runner that stalled past its lease and lost the job to another writes nothing.
 */

/** As listed: `running` is a pending job that a live lease holds. */
export const JOB_STATES = ['pending', 'running', 'done', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobRecord {
  id: number;
  kind: string;
  reference: string;
  state: JobState;
  /** Not run before this time. */
  runAt: Date;
  /** Failed attempts since it last succeeded or was retried. */
  attempts: number;
  /** The job's own limit of attempts, or null: its kind's. */
  maxAttempts: number | null;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  lastError: string | null;
  created: Date;
  updated: Date;
}

/** What a settling call names: the job and the owner its lease was claimed for. */
export interface JobLease {
  id: number;
  owner: string;
}

export interface JobFilter {
  kind?: string;
  state?: JobState;
  /** At most this many, newest first. */
  limit?: number;
}

export interface JobCount {
  kind: string;
  state: JobState;
  count: number;
}

export interface JobStore {
  /**
   * The job of `kind` for `reference`, pending from `runAt` (default: now). Idempotent: a pending one is
   * left as it is; a done one is made pending again (recurring work keeps one row); a failed one is
   * left failed (`retryJob`).
   */
  enqueue(kind: string, reference: string, options?: { runAt?: Date; maxAttempts?: number }): Promise<JobRecord>;
  /**
   * Lease up to `limit` due jobs of `kinds` to `owner` for `leaseMs` (the database's clock), earliest
   * `runAt` first: pending, due, and not held by a live lease. Two callers never get one job. `except`:
   * job ids left out (the caller's own jobs still running, or passed over for now).
   */
  claim(kinds: readonly string[], owner: string, limit: number, leaseMs: number, except?: readonly number[]): Promise<JobRecord[]>;
  /** Done. */
  complete(lease: JobLease): Promise<boolean>;
  /** A failed attempt: pending again in `delayMs`, with `attempts` failed attempts (default: one more) and `error`. */
  retryLater(lease: JobLease, delayMs: number, error: string, attempts?: number): Promise<boolean>;
  /** Recurring work that succeeded: pending again in `delayMs`, its attempts and error cleared. */
  reschedule(lease: JobLease, delayMs: number): Promise<boolean>;
  /** Past its attempts: failed with `error` (and `attempts` failed attempts), until `retryJob`. */
  fail(lease: JobLease, error: string, attempts: number): Promise<boolean>;
  /** The lease let go, nothing else changed: another runner may take the job at once. */
  release(lease: JobLease): Promise<boolean>;
  /** The lease extended by `leaseMs` from now. */
  renew(lease: JobLease, leaseMs: number): Promise<boolean>;

  getJob(id: number): Promise<JobRecord | null>;
  listJobs(filter?: JobFilter): Promise<JobRecord[]>;
  /** How many jobs there are, per kind and state (only those with any). */
  countJobs(): Promise<JobCount[]>;
  /** A failed job made pending now, its attempts cleared; null when there is no failed job `id`. */
  retryJob(id: number): Promise<JobRecord | null>;
}

export interface JobStoreProvider {
  readonly jobs: JobStore;
}

export function hasJobStore<S extends object>(store: S): store is S & JobStoreProvider {
  const jobs = (store as Partial<JobStoreProvider>).jobs;
  return typeof jobs === 'object' && jobs !== null && typeof jobs.claim === 'function';
}

/** The kinds of job there are today (docs/DESIGN.md "Background jobs"), each with its reference. */
export const JOB_KINDS = {
  /**
   * A REST order placed `pending` (lib/ca/order-runner): written with the order, in its INSERT, and
   * done in the statement that issues or fails the order; reference: the order's id.
   */
  restOrder: 'rest_order',
  /** Webhook delivery (lib/webhooks/delivery.ts): one job per endpoint with events to deliver; reference: the endpoint's id. */
  webhookDelivery: 'webhook_delivery',
  /** The scan for expiring certificates (lib/webhooks/delivery.ts): one recurring job, reference `certificates`. */
  expiryScan: 'expiry_scan',
  /**
   * An ACME challenge's validation (lib/acme/runner.ts): one job per challenge being validated
   * (`processing`); reference: the challenge's id. Made leased to the answering instance in the
   * statement that starts the validation, settled in the statement that records each attempt.
   */
  acmeValidation: 'acme_validation',
  /**
   * An ACME order's issuance (lib/acme/runner.ts): one job per order being issued (`processing`);
   * reference: the order's id. Made leased to the answering instance by finalize's statement, done in
   * the statement that stores the certificate.
   */
  acmeIssuance: 'acme_issuance',
  /** ACME orders and authorizations past `expires` (lib/acme/runner.ts): one recurring job, reference `orders`. */
  acmeExpiry: 'acme_expiry',
} as const;
