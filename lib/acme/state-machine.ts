/**
 * RFC 8555's state machines (§7.1.6) as data, and the changes each event makes: the rules live here,
 * the store only applies them (docs/DESIGN.md "ACME", "The state machine").
 *
 * `MOVES` lists, per object and event, the status each status goes to; a status an event does not
 * list refuses it. Every change below is built from that table: each step of a change names the row,
 * the statuses it may be in (`from`) and the one it goes to (`to`), and the store applies the steps of
 * one change together in one statement, each step only if the one before it applied (challenge, then
 * authorization, then order): a challenge no longer `processing` — another runner recorded it — moves
 * nothing. Two validations of one order finishing at once serialise on the order's row in the store,
 * so exactly one of them makes it `ready` (`countDown`).
 */
import type {
  AcmeAccountStatus,
  AcmeAuthorizationStatus,
  AcmeBulkChange,
  AcmeChallengeStatus,
  AcmeErrorDocument,
  AcmeJobStep,
  AcmeOrderRecord,
  AcmeOrderStatus,
  AcmeOrderStep,
  AcmeStateChange,
  AcmeValidationStart,
  ClaimedValidation,
  SignRequest,
} from '../ports';
import { ACME_ERROR_NAMESPACE } from './problems';

/** What a validation attempt found (the runner decides, lib/acme/runner.ts). */
export type ValidationResult =
  | { kind: 'valid'; at: Date }
  /** Final: challenge, authorization and order become `invalid`, each with `problem`. */
  | { kind: 'invalid'; problem: AcmeErrorDocument }
  /** Try again after `retry.delayMs` (`retry.attempts` failed so far); `problem` is kept on the challenge meanwhile (RFC 8555 §8.2). */
  | { kind: 'retry'; problem: AcmeErrorDocument; retry: JobRetry };

type Moves<S extends string> = Readonly<Record<string, Readonly<Partial<Record<S, S>>>>>;

/** RFC 8555 §7.1.6, challenge: pending → processing (the client's POST) → valid | invalid; a retry stays processing (§8.2). */
export const CHALLENGE_MOVES = {
  start: { pending: 'processing' },
  validated: { processing: 'valid' },
  failed: { processing: 'invalid' },
  retry: { processing: 'processing' },
} as const satisfies Moves<AcmeChallengeStatus>;

/**
 * RFC 8555 §7.1.6, authorization: pending → valid (a challenge valid) | invalid (a challenge failed);
 * pending or valid → deactivated (its account, §7.5.2) | expired (past `expires`) | revoked (the server).
 * This store expires pending authorizations only: a valid one keeps its status past `expires` (its
 * order carries its own `expires`).
 */
export const AUTHORIZATION_MOVES = {
  validated: { pending: 'valid' },
  failed: { pending: 'invalid' },
  deactivate: { pending: 'deactivated', valid: 'deactivated' },
  expire: { pending: 'expired' },
  revoke: { pending: 'revoked', valid: 'revoked' },
} as const satisfies Moves<AcmeAuthorizationStatus>;

/**
 * RFC 8555 §7.1.6, order: pending → ready (all its authorizations valid) → processing (finalize) →
 * valid (certificate issued); an authorization failed or deactivated, or the account deactivated, or
 * `expires` passed: pending | ready → invalid; issuance failed for good: processing → invalid. A failed
 * issuance to try again stays processing.
 */
export const ORDER_MOVES = {
  authorizationValid: { pending: 'ready' },
  finalize: { ready: 'processing' },
  issued: { processing: 'valid' },
  issuanceRetry: { processing: 'processing' },
  issuanceFailed: { processing: 'invalid' },
  authorizationFailed: { pending: 'invalid', ready: 'invalid' },
  expire: { pending: 'invalid', ready: 'invalid' },
} as const satisfies Moves<AcmeOrderStatus>;

/** RFC 8555 §7.1.6, account: valid → deactivated (the client, §7.3.6) | revoked (the server). */
export const ACCOUNT_MOVES = {
  deactivate: { valid: 'deactivated' },
  revoke: { valid: 'revoked' },
} as const satisfies Moves<AcmeAccountStatus>;

export const MOVES = {
  challenge: CHALLENGE_MOVES,
  authorization: AUTHORIZATION_MOVES,
  order: ORDER_MOVES,
  account: ACCOUNT_MOVES,
} as const;

export type AcmeObjectKind = keyof typeof MOVES;
type EventOf<K extends AcmeObjectKind> = keyof (typeof MOVES)[K];
type StatusOf<K extends AcmeObjectKind> = {
  challenge: AcmeChallengeStatus;
  authorization: AcmeAuthorizationStatus;
  order: AcmeOrderStatus;
  account: AcmeAccountStatus;
}[K];

/** The status `event` moves an object of `kind` in `status` to; null: the event is refused in that status. */
export function next<K extends AcmeObjectKind>(kind: K, status: StatusOf<K>, event: EventOf<K>): StatusOf<K> | null {
  const moves = MOVES[kind][event] as Partial<Record<string, string>>;
  return (moves[status] as StatusOf<K> | undefined) ?? null;
}

/**
 * The move of `event`: from every status the event leaves (or only those of `only`, each of which it
 * must leave), to the one it reaches (one per event).
 */
export function move<K extends AcmeObjectKind>(kind: K, event: EventOf<K>, only?: StatusOf<K>[]): { from: StatusOf<K>[]; to: StatusOf<K> } {
  const moves = MOVES[kind][event] as Partial<Record<string, string>>;
  const targets = [...new Set(Object.values(moves))];
  if (targets.length !== 1) throw new Error(`ACME ${kind} event ${String(event)} has no single target status`);
  const from = Object.keys(moves) as StatusOf<K>[];
  if (only?.some((s) => !from.includes(s))) throw new Error(`ACME ${kind} event ${String(event)} does not leave ${only.join(', ')}`);
  return { from: only ?? from, to: targets[0] as StatusOf<K> };
}

/** The move of `event` for row `id`. */
function step<K extends AcmeObjectKind>(kind: K, event: EventOf<K>, id: number): { id: number; from: StatusOf<K>[]; to: StatusOf<K> } {
  return { id, ...move(kind, event) };
}

/** Whether finalize may start issuing the order (RFC 8555 §7.4: only a `ready` order). */
export function canFinalize(order: Pick<AcmeOrderRecord, 'status'>): boolean {
  return next('order', order.status, 'finalize') !== null;
}

/** Whether the account may deactivate the authorization (RFC 8555 §7.5.2); otherwise it is shown as it is. */
export function canDeactivateAuthorization(status: AcmeAuthorizationStatus): boolean {
  return next('authorization', status, 'deactivate') !== null;
}

const problem = (type: string, detail: string): AcmeErrorDocument => ({ type: ACME_ERROR_NAMESPACE + type, detail });

/**
 * The client asks for a challenge's validation (RFC 8555 §7.5.1): a pending challenge starts
 * processing, while its authorization can still become valid and its order can count it.
 */
export function onChallengeStart(): AcmeValidationStart {
  return {
    ...move('challenge', 'start'),
    authorizationIn: Object.keys(AUTHORIZATION_MOVES.validated) as AcmeAuthorizationStatus[],
    orderIn: Object.keys(ORDER_MOVES.authorizationValid) as AcmeOrderStatus[],
  };
}

/**
 * The background job (lib/ports/jobs.ts) of an attempt, as the runner holding it (`owner`) settles
 * it: `retry` — pending again after `delayMs`, with `attempts` failed attempts — or done.
 */
export interface AttemptJob {
  kind: string;
  reference: string;
  owner: string;
}

export type JobRetry = { delayMs: number; attempts: number };

function settled(job: AttemptJob, retry: (JobRetry & { error: AcmeErrorDocument }) | null): AcmeJobStep {
  if (!retry) return { ...job, to: { state: 'done' } };
  return { ...job, to: { state: 'retry', delayMs: retry.delayMs, attempts: retry.attempts, error: retry.error.detail } };
}

/**
 * A validation attempt recorded (RFC 8555 §7.5.1, §8.2), with its job's outcome, while the job's
 * lease is held: valid — the challenge valid, its authorization valid, its order one authorization
 * nearer `ready`, the job done; invalid — all three invalid, the order with the challenge's error,
 * the job done; retry — the challenge stays processing with its error, the job pending again later.
 */
export function onValidation(
  claimed: Pick<ClaimedValidation, 'challenge' | 'orderId'>,
  result: ValidationResult,
  job: AttemptJob,
): AcmeStateChange {
  const { challenge, orderId } = claimed;
  const attempt = { countAttempt: true } as const;
  if (result.kind === 'retry') {
    return {
      job: settled(job, { ...result.retry, error: result.problem }),
      challenge: { ...step('challenge', 'retry', challenge.id), set: { ...attempt, error: result.problem } },
    };
  }
  if (result.kind === 'valid') {
    return {
      job: settled(job, null),
      challenge: { ...step('challenge', 'validated', challenge.id), set: { ...attempt, validated: result.at, error: null } },
      authorization: step('authorization', 'validated', challenge.authorizationId),
      order: { ...step('order', 'authorizationValid', orderId), countDown: true },
    };
  }
  return {
    job: settled(job, null),
    challenge: { ...step('challenge', 'failed', challenge.id), set: { ...attempt, error: result.problem } },
    authorization: step('authorization', 'failed', challenge.authorizationId),
    order: { ...step('order', 'authorizationFailed', orderId), set: { error: result.problem } },
  };
}

/**
 * Finalize (RFC 8555 §7.4): a `ready` order is being issued, with its sign request, and its
 * `acme_issuance` job made in the same statement, leased to `job.owner` (who issues it now) for `leaseMs`.
 */
export function onFinalize(
  orderId: number,
  request: SignRequest,
  job: AttemptJob & { leaseMs: number },
  address: string | null,
): AcmeStateChange {
  const { leaseMs, ...named } = job;
  return {
    order: { ...step('order', 'finalize', orderId), set: { request, sourceAddress: address } },
    job: { ...named, to: { state: 'lease', leaseMs } },
  };
}

/** The certificate stored: the order becomes `valid` (its request dropped; the store ends its job in the same statement). */
export function onIssued(orderId: number): AcmeOrderStep {
  return { ...step('order', 'issued', orderId), set: { request: null } };
}

/**
 * Issuance failed, while `job`'s lease is held: for good (`retry` null) the order becomes `invalid`
 * with `error` and the job done; else the order stays processing with `error`, the job pending again later.
 */
export function onIssuanceFailed(orderId: number, error: AcmeErrorDocument, retry: JobRetry | null, job: AttemptJob): AcmeStateChange {
  if (retry) {
    return {
      job: settled(job, { ...retry, error }),
      order: { ...step('order', 'issuanceRetry', orderId), set: { error, countAttempt: true } },
    };
  }
  return { job: settled(job, null), order: { ...step('order', 'issuanceFailed', orderId), set: { error, request: null } } };
}

/** The account deactivates an authorization (RFC 8555 §7.5.2): its order, unless finalized, becomes `invalid`. */
export function onAuthorizationDeactivated(authorization: { id: number; orderId: number }): AcmeStateChange {
  return {
    authorization: step('authorization', 'deactivate', authorization.id),
    order: {
      ...step('order', 'authorizationFailed', authorization.orderId),
      set: { error: problem('unauthorized', 'An authorization of the order was deactivated.') },
    },
  };
}

/**
 * The account deactivates itself (RFC 8555 §7.3.6: "the server SHOULD cancel any pending operations"):
 * its unfinished orders become `invalid`, their pending authorizations `deactivated`.
 */
export function onAccountDeactivated(): { account: { from: AcmeAccountStatus[]; to: AcmeAccountStatus }; cascade: AcmeBulkChange } {
  return {
    account: move('account', 'deactivate'),
    cascade: {
      orders: { ...move('order', 'authorizationFailed'), error: problem('unauthorized', 'The account was deactivated.') },
      authorizations: move('authorization', 'deactivate', ['pending']),
    },
  };
}

/** Past `expires` (RFC 8555 §7.1.6): unfinished orders become `invalid`, pending authorizations `expired`. */
export function onExpiry(): AcmeBulkChange {
  return {
    orders: { ...move('order', 'expire'), error: problem('malformed', 'The order expired before it was finalized.') },
    authorizations: move('authorization', 'expire'),
  };
}
