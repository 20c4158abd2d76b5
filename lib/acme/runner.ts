/**
 * The ACME server's durable work, on any instance (docs/guides/acme.md, docs/DESIGN.md "Background
 * jobs"): background jobs (lib/ports/jobs.ts) of three kinds, run by the one job runner
 * (lib/work/jobs-runner.ts) with the handlers of `acmeJobHandlers`.
 *
 * - `acme_validation` (reference: the challenge's id): a challenge the client asked to validate is
 *   `processing`, and its job is written in the same statement, leased to the instance that answered
 *   the request, which makes the first attempt at once (`validateNow`). Each attempt asks the
 *   validator and records the outcome with the job's, in one statement, while the lease is held:
 *   valid; invalid with the validator's `error` when the answer is wrong; or, when the failure may pass
 *   (a timeout, a refused connection, a record not there yet), the job pending again after a doubling
 *   delay with jitter, at most an hour (lib/work/policies.ts), counted in the job's `attempts`, up to
 *   `validationAttempts` (RFC 8555 §8.2), after which the challenge is invalid with the last error and
 *   the job done. The handler decides that: no validation job is ever left `failed`.
 * - `acme_issuance` (reference: the order's id): finalize moves the order to `processing` and writes
 *   its job, leased to the instance that issues in the request (`issueNow`); an issuance that did not
 *   finish — its instance died, the database was away — is claimed once the lease lapses and issued
 *   here. The statement that stores the certificate ends the job; one that keeps failing ends the
 *   order invalid after `ISSUANCE_ATTEMPTS`.
 * - `acme_expiry` (one recurring job): orders and authorizations past `expires` become invalid/expired
 *   (RFC 8555 §7.1.6), every minute on one instance.
 *
 * A runner that dies leaves its lease to lapse, and another instance (or this one, restarted) claims
 * the job: nothing is ever left `processing` for ever, and each step ends valid or invalid within a
 * bounded number of attempts.
 */
import { randomBytes } from 'crypto';
import { CaError } from '../ca/errors';
import type { LogError } from '../http/error-catch';
import {
  JOB_KINDS,
  StoreUnavailableError,
  type AcmeChallengeRecord,
  type AcmeErrorDocument,
  type AcmeOrderRecord,
  type AcmeStore,
  type CaRecord,
  type CertificateRecord,
  type ChallengeValidator,
  type ClaimedValidation,
  type JobStore,
  type MetricsSink,
  type SignRequest,
  type Store,
  type ValidationOutcome,
} from '../ports';
import { X509Error } from '../x509/errors';
import { delayMs, type BackoffPolicy } from '../work/backoff';
import { JobsRunner, type JobHandler, type JobOutcome } from '../work/jobs-runner';
import { BACKOFF_POLICIES } from '../work/policies';
import { IssuanceNotStarted, issueOrder, type AcmeSigning } from './issue';
import { IssuanceTaken } from '../ca/issuance/sign';
import { ACME_ERROR_NAMESPACE } from './problems';
import { onExpiry, onIssuanceFailed, onValidation, type AttemptJob, type ValidationResult } from './state-machine';

export interface AcmeRunnerSettings {
  validationAttempts: number;
  validationRetryMs: number;
  /** How often the store is asked for due jobs when nothing woke the runner. Default 1000 ms. */
  pollMs?: number;
  /** Jobs at once. Default 8. */
  concurrency?: number;
  /** How long a claimed validation or issuance belongs to its runner (option `acme.leaseMs`): more than one attempt may take. */
  leaseMs: number;
}

const EXPIRY_EVERY_MS = 60_000;
/** The `acme_expiry` job's one reference. */
export const ACME_EXPIRY_REFERENCE = 'orders';
const ISSUANCE_ATTEMPTS = 5;

export interface AcmeRunnerDeps {
  acme: AcmeStore;
  store: Pick<Store, 'getCa'>;
  /** Where the jobs are (the store's `JobStoreProvider`). */
  jobs: JobStore;
  validator: ChallengeValidator;
  signing: AcmeSigning;
  logError: LogError;
  /** Told when orders become valid or invalid here (docs/operations/metrics.md). */
  metrics?: MetricsSink;
}

/**
 * The attempts themselves, shared by the request's first attempt and the jobs' later ones: each
 * recorded with its job's outcome in one statement, while `job.owner` holds the lease.
 */
class AcmeAttempts {
  readonly validationPolicy: BackoffPolicy;
  readonly issuancePolicy: BackoffPolicy;

  constructor(
    private readonly deps: AcmeRunnerDeps,
    private readonly settings: AcmeRunnerSettings,
  ) {
    this.validationPolicy = BACKOFF_POLICIES.acmeValidationRetry(settings.validationRetryMs);
    this.issuancePolicy = BACKOFF_POLICIES.acmeIssuanceRetry(settings.validationRetryMs);
  }

  /**
   * One attempt after `failed` failed ones, recorded; the challenge as recorded (null: nothing was —
   * the lease was lost, or the challenge was no longer `processing`).
   */
  async validate(claimed: ClaimedValidation, failed: number, owner: string): Promise<AcmeChallengeRecord | null> {
    const { challenge, identifier, thumbprint } = claimed;
    let outcome: ValidationOutcome;
    try {
      outcome = await this.deps.validator.validate({
        type: challenge.type,
        identifier,
        token: challenge.token,
        keyAuthorization: `${challenge.token}.${thumbprint}`,
      });
    } catch (e) {
      // The port says validators never throw; one that does fails the attempt, not the runner.
      this.deps.logError('express-ca-api: ACME runner', e);
      outcome = { valid: false, retryable: true, problem: { type: 'serverInternal', detail: 'The validator failed.' } };
    }
    const attempt = failed + 1;
    const result = this.result(attempt, outcome);
    const job: AttemptJob = { kind: JOB_KINDS.acmeValidation, reference: String(challenge.id), owner };
    if (!(await this.deps.acme.applyChange(onValidation(claimed, result, job)))) return null;
    if (result.kind === 'invalid') this.deps.metrics?.acmeOrders('invalid'); // its authorization, so its order (RFC 8555 §7.1.6)
    const attempts = challenge.attempts + 1;
    if (result.kind === 'valid') return { ...challenge, status: 'valid', validated: result.at, error: null, attempts };
    return { ...challenge, status: result.kind === 'retry' ? 'processing' : 'invalid', error: result.problem, attempts };
  }

  private result(attempt: number, outcome: ValidationOutcome): ValidationResult {
    if (outcome.valid) return { kind: 'valid', at: new Date() };
    const error = problem(outcome.problem.type, outcome.problem.detail);
    if (outcome.retryable && attempt < this.settings.validationAttempts) {
      return { kind: 'retry', problem: error, retry: { delayMs: delayMs(this.validationPolicy, attempt), attempts: attempt } };
    }
    return { kind: 'invalid', problem: error };
  }

  /**
   * Issue after `failed` failed attempts, and on failure record it with the job's outcome: for good when
   * retrying cannot help or this was the last attempt, else for another attempt later.
   */
  async issue(
    ca: CaRecord,
    order: AcmeOrderRecord,
    request: SignRequest,
    failed: number,
    owner: string,
    started?: Promise<boolean>,
  ): Promise<CertificateRecord | null> {
    const job: AttemptJob = { kind: JOB_KINDS.acmeIssuance, reference: String(order.id), owner };
    const record = (error: AcmeErrorDocument, retry: { delayMs: number; attempts: number } | null): Promise<unknown> =>
      this.deps.acme
        .applyChange(onIssuanceFailed(order.id, error, retry, job))
        .catch((f: unknown) => this.deps.logError('express-ca-api: ACME runner', f));
    try {
      const certificate = await issueOrder(this.deps.signing, ca, order, request, started);
      this.deps.metrics?.acmeOrders('valid');
      return certificate;
    } catch (e) {
      // The order was not moved to `processing` by this request (another request has it): nothing
      // was signed, nothing is recorded.
      if (e instanceof IssuanceNotStarted || (started && !(await started.catch(() => false)))) return null;
      // Another instance's intent answers the order and is issued (its certificate stored, the order
      // refused it): this order cannot get another certificate.
      if (e instanceof IssuanceTaken && e.intent.certificateId !== null) {
        await record(problem('serverInternal', 'The certificate of this order was issued but could not be attached to it.'), null);
        return null;
      }
      const attempt = failed + 1;
      const final = e instanceof CaError || e instanceof X509Error || attempt >= ISSUANCE_ATTEMPTS;
      if (!(e instanceof StoreUnavailableError)) this.deps.logError('express-ca-api: ACME runner', e);
      const detail = e instanceof CaError || e instanceof X509Error ? e.message : 'The certificate could not be issued.';
      if (final) this.deps.metrics?.acmeOrders('invalid');
      await record(problem('serverInternal', detail), final ? null : { delayMs: delayMs(this.issuancePolicy, attempt), attempts: attempt });
      return null;
    }
  }
}

/**
 * The handlers of ACME's job kinds (`acme_validation`, `acme_issuance`, `acme_expiry`), for a job
 * runner (lib/work/jobs-runner.ts) that registers every kind. Each attempt settles its own job in the
 * statement that records it (`settled`); a job whose work is gone or finished is done.
 */
export function acmeJobHandlers(deps: AcmeRunnerDeps, settings: AcmeRunnerSettings): JobHandler[] {
  return handlersOf(new AcmeAttempts(deps, settings), deps, settings);
}

function handlersOf(attempts: AcmeAttempts, deps: AcmeRunnerDeps, settings: AcmeRunnerSettings): JobHandler[] {
  let expiryEnqueued = false;
  return [
    {
      kind: JOB_KINDS.acmeValidation,
      leaseMs: settings.leaseMs,
      policy: attempts.validationPolicy,
      handle: async (job, context): Promise<JobOutcome> => {
        const claimed = await deps.acme.findValidation(Number(job.reference));
        if (!claimed || claimed.challenge.status !== 'processing') return { kind: 'done' };
        const recorded = await attempts.validate(claimed, job.attempts, context.lease.owner);
        return recorded ? { kind: 'settled' } : { kind: 'lost' };
      },
    },
    {
      kind: JOB_KINDS.acmeIssuance,
      leaseMs: settings.leaseMs,
      policy: attempts.issuancePolicy,
      handle: async (job, context): Promise<JobOutcome> => {
        const found = await deps.acme.findIssuance(Number(job.reference));
        if (!found || found.order.status !== 'processing' || found.order.certificateId !== null) return { kind: 'done' };
        const { order, request } = found;
        const owner = context.lease.owner;
        const ca = await deps.store.getCa(order.caId);
        if (!ca) {
          const gone = problem('serverInternal', 'The CA of the order no longer exists.');
          const ended = await deps.acme.applyChange(
            onIssuanceFailed(order.id, gone, null, { kind: job.kind, reference: job.reference, owner }),
          );
          return ended ? { kind: 'settled' } : { kind: 'lost' };
        }
        await attempts.issue(ca, order, request, job.attempts, owner);
        return { kind: 'settled' };
      },
    },
    {
      kind: JOB_KINDS.acmeExpiry,
      leaseMs: EXPIRY_EVERY_MS,
      policy: BACKOFF_POLICIES.acmeExpiryRetry(EXPIRY_EVERY_MS),
      feed: async () => {
        if (expiryEnqueued) return;
        await deps.jobs.enqueue(JOB_KINDS.acmeExpiry, ACME_EXPIRY_REFERENCE);
        expiryEnqueued = true;
      },
      handle: async (): Promise<JobOutcome> => {
        const expired = await deps.acme.expire(new Date(), onExpiry());
        if (expired > 0) deps.metrics?.acmeOrders('invalid', expired);
        return { kind: 'again', afterMs: EXPIRY_EVERY_MS };
      },
    },
  ];
}

/**
 * What a request of the ACME server uses: the first attempt of work it made pending, made at once
 * under the lease its statement took (for `owner`); and, until every kind runs in one router-owned
 * runner, the job runner of ACME's kinds.
 */
export class AcmeRunner {
  /** Who holds the leases the requests take (one per instance, unique across instances). */
  readonly owner = `acme-${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly attempts: AcmeAttempts;
  private readonly jobs: JobsRunner;

  constructor(deps: AcmeRunnerDeps, settings: AcmeRunnerSettings) {
    this.attempts = new AcmeAttempts(deps, settings);
    this.jobs = new JobsRunner({
      name: 'ACME jobs',
      jobs: deps.jobs,
      handlers: handlersOf(this.attempts, deps, settings),
      intervalMs: settings.pollMs ?? 1000,
      concurrency: settings.concurrency ?? 8,
      logError: deps.logError,
    });
  }

  /** Begin claiming due jobs (validations left by a restart, issuances whose lease lapsed, the expiry). */
  start(): void {
    this.jobs.start();
  }

  /** A claim soon (new work is due). */
  poke(): void {
    this.jobs.poke();
  }

  async close(): Promise<void> {
    await this.jobs.close();
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Validate a challenge the client has just asked for (`startValidation` leased its job to `owner`),
   * here and now rather than on the runner's next round: most validations take milliseconds, and the
   * client's answer then already says `valid` or `invalid`. Resolves with the challenge as recorded,
   * or null when the attempt takes longer than `waitMs` (it goes on; the client polls) or was
   * overtaken (nothing recorded: the caller reads the challenge again).
   */
  async validateNow(claimed: ClaimedValidation, waitMs: number): Promise<AcmeChallengeRecord | null> {
    return raceTimeout(this.track(this.attempts.validate(claimed, 0, this.owner)), waitMs, null);
  }

  /**
   * Issue an order that finalize has just moved to `processing` (its job leased to `owner`), or is
   * moving there (`started`: the certificate is signed meanwhile and stored only if the move
   * succeeded). Resolves the certificate when the order is `valid` within `waitMs`; null when it is
   * still being issued (the client polls) or failed (the order then says why).
   */
  async issueNow(
    ca: CaRecord,
    order: AcmeOrderRecord,
    request: SignRequest,
    waitMs: number,
    started?: Promise<boolean>,
  ): Promise<CertificateRecord | null> {
    return raceTimeout(this.track(this.attempts.issue(ca, order, request, 0, this.owner, started)), waitMs, null);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => {});
    return work;
  }
}

/** `work`'s value, or `fallback` once `ms` have passed (the work goes on). */
async function raceTimeout<T, F>(work: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function problem(type: string, detail: string): AcmeErrorDocument {
  return { type: ACME_ERROR_NAMESPACE + type, detail };
}
