/**
 * RFC 8555's objects' statuses (§7.1.6) and the changes of them that lib/acme/state-machine.ts
 * decides and an ACME store (acme-store.ts) applies, each change atomically: the store's input
 * vocabulary, in which it is told which row goes from which statuses to which, never why.
 */
import type { SignRequest } from './records';

/** A problem document as kept in an `error` member (RFC 8555 §6.7, RFC 7807). */
export interface AcmeErrorDocument {
  type: string;
  detail: string;
  status?: number;
  subproblems?: { type: string; detail: string; identifier?: { type: string; value: string } }[];
}

export type AcmeAccountStatus = 'valid' | 'deactivated' | 'revoked';

export type AcmeOrderStatus = 'pending' | 'ready' | 'processing' | 'valid' | 'invalid';
export type AcmeAuthorizationStatus = 'pending' | 'valid' | 'invalid' | 'deactivated' | 'expired' | 'revoked';
export type AcmeChallengeStatus = 'pending' | 'processing' | 'valid' | 'invalid';

/**
 * One conditional update of a row, as lib/acme/state-machine.ts decides it: row `id` goes to `to` (and
 * its other columns to `set`), only while its status is one of `from`.
 */
export interface AcmeStep<S extends string, F = never> {
  id: number;
  from: readonly S[];
  to: S;
  set?: F;
}

/** What a challenge step writes besides its status. */
export interface AcmeChallengeFields {
  validated?: Date;
  error?: AcmeErrorDocument | null;
  /** One attempt more. */
  countAttempt?: true;
}

/** What an order step writes besides its status. */
export interface AcmeOrderFields {
  error?: AcmeErrorDocument | null;
  request?: SignRequest | null;
  /** Where the finalize request came from (Express's `req.ip`): named in the certificate's `certificate.issued` event. */
  sourceAddress?: string | null;
  /** One attempt more. */
  countAttempt?: true;
}

export type AcmeOrderStep = AcmeStep<AcmeOrderStatus, AcmeOrderFields> & {
  /**
   * One more of the order's authorizations is valid: `to` applies only once none is left pending.
   * Two count-downs of one order at once serialise on its row, so exactly one reaches zero.
   */
  countDown?: true;
};

/**
 * A change decided by lib/acme/state-machine.ts, applied atomically in one statement: each step
 * present applies only if the one before it did (challenge, then authorization, then order).
 */
export interface AcmeStateChange {
  challenge?: AcmeStep<AcmeChallengeStatus, AcmeChallengeFields>;
  authorization?: AcmeStep<AcmeAuthorizationStatus>;
  order?: AcmeOrderStep;
  /** The background job of the work (lib/ports/jobs.ts), written in the same statement. */
  job?: AcmeJobStep;
}

/**
 * What a change does to the background job (lib/ports/jobs.ts) of its work — job `kind` for
 * `reference`, held by `owner` — in the change's own statement (docs/DESIGN.md "Background jobs"):
 *
 * - `lease`: the work became pending (finalize): the job is made pending, leased to `owner` for
 *   `leaseMs` (who makes the first attempt now); written only if the change's first step applied.
 * - `done`, `retry`: an attempt's outcome: the job done, or pending again in `delayMs` with
 *   `attempts` failed attempts and `error`. Written only while `owner` holds the job's lease, and the
 *   change's steps apply only if it was: a runner that lost the job to another changes nothing.
 */
export interface AcmeJobStep {
  kind: string;
  reference: string;
  owner: string;
  to: { state: 'lease'; leaseMs: number } | { state: 'done' } | { state: 'retry'; delayMs: number; attempts: number; error: string };
}

/** A challenge's move when its validation starts, and the statuses its authorization and its order must be in. */
export interface AcmeValidationStart {
  from: readonly AcmeChallengeStatus[];
  to: AcmeChallengeStatus;
  authorizationIn: readonly AcmeAuthorizationStatus[];
  orderIn: readonly AcmeOrderStatus[];
}

/** A change of every order (with `error`) and authorization in one of `from`, of an account or past `expires`. */
export interface AcmeBulkChange {
  orders?: { from: readonly AcmeOrderStatus[]; to: AcmeOrderStatus; error: AcmeErrorDocument };
  authorizations?: { from: readonly AcmeAuthorizationStatus[]; to: AcmeAuthorizationStatus };
}
