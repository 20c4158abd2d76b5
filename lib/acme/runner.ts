/**
 * The ACME runner: the durable work of the ACME server, on any instance (docs/guides/acme.md).
 *
 * - Validations: a challenge the client asked to validate is `processing` in the store, leased to
 *   the instance that answered the request, which makes the first attempt at once (`validateNow`).
 *   Later attempts have the time they are due; the runner claims due ones (`FOR UPDATE SKIP
 *   LOCKED` and a lease), asks the validator, and records the outcome: valid; invalid with the validator's `error` when the answer
 *   is wrong; or, when the failure may pass (a timeout, a refused connection, a record not there
 *   yet), another attempt after a doubling delay with jitter, at most an hour (lib/work/policies.ts),
 *   up to `validationAttempts` (RFC 8555 §8.2), after
 *   which it is invalid with the last error. A runner that dies leaves its lease to lapse, and
 *   another instance (or this one, restarted) takes the work over.
 * - Issuance: finalize issues in the request (`issueNow`); an order whose issuance did not finish —
 *   its instance died, the database was away — is claimed once its lease lapses and issued here.
 * - Expiry: orders and authorizations past `expires` become invalid/expired (RFC 8555 §7.1.6).
 *
 * Nothing is ever left `processing` for ever: each step ends valid or invalid within a bounded
 * number of attempts.
 */
import { randomBytes } from 'crypto';
import { CaError } from '../ca/errors';
import type { LogError } from '../http/error-catch';
import {
  StoreUnavailableError,
  type AcmeChallengeRecord,
  type AcmeErrorDocument,
  type AcmeOrderRecord,
  type AcmeStore,
  type CaRecord,
  type CertificateRecord,
  type ChallengeValidator,
  type ClaimedValidation,
  type MetricsSink,
  type SignRequest,
  type Store,
  type ValidationOutcome,
} from '../ports';
import { X509Error } from '../x509/errors';
import { delayMs } from '../work/backoff';
import { BACKOFF_POLICIES } from '../work/policies';
import { WorkLoop } from '../work/loop';
import { IssuanceNotStarted, issueOrder, type AcmeSigning } from './issue';
import { IssuanceTaken } from '../ca/issuance/sign';
import { ACME_ERROR_NAMESPACE } from './problems';
import { onExpiry, onIssuanceFailed, onValidation, type ValidationResult } from './state-machine';

export interface AcmeRunnerSettings {
  validationAttempts: number;
  validationRetryMs: number;
  /** How often the store is asked for due work when nothing woke the runner. Default 1000 ms. */
  pollMs?: number;
  /** Validations at once. Default 8. */
  concurrency?: number;
  /** How long a claimed validation or issuance belongs to its runner (option `acme.leaseMs`): more than one attempt may take. */
  leaseMs: number;
}

const EXPIRY_EVERY_MS = 60_000;
const ISSUANCE_ATTEMPTS = 5;

export interface AcmeRunnerDeps {
  acme: AcmeStore;
  store: Pick<Store, 'getCa'>;
  validator: ChallengeValidator;
  signing: AcmeSigning;
  logError: LogError;
  /** Told when orders become valid or invalid here (docs/operations/metrics.md). */
  metrics?: MetricsSink;
}

export class AcmeRunner {
  /** Who holds the leases this runner takes (one per runner, unique across instances). */
  readonly owner = `acme-${process.pid}-${randomBytes(6).toString('hex')}`;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Validations and issuance every `pollMs`; expiry every minute (lib/work/loop.ts). */
  private readonly loops: WorkLoop[];

  constructor(
    private readonly deps: AcmeRunnerDeps,
    private readonly settings: AcmeRunnerSettings,
  ) {
    const loop = (name: string, intervalMs: number, round: () => Promise<unknown>) =>
      new WorkLoop({ name, round, intervalMs, outage: BACKOFF_POLICIES.workOutage(intervalMs), logError: deps.logError });
    this.loops = [
      loop('ACME runner', settings.pollMs ?? 1000, () => this.pass()),
      loop('ACME expiry', EXPIRY_EVERY_MS, () => this.expire()),
    ];
  }

  /** Begin polling for due work (validations left by a restart, issuances whose lease lapsed). */
  start(): void {
    for (const loop of this.loops) loop.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Validate a challenge the client has just asked for (`startValidation` leased it to this runner),
   * here and now rather than on the runner's next round: most validations take milliseconds, and the
   * client's answer then already says `valid` or `invalid`. Resolves with the challenge as recorded,
   * or null when the attempt takes longer than `waitMs` (it goes on; the client polls) or was
   * overtaken (nothing recorded: the caller reads the challenge again).
   */
  async validateNow(claimed: ClaimedValidation, waitMs: number): Promise<AcmeChallengeRecord | null> {
    return raceTimeout(this.track(this.validate(claimed)), waitMs, null);
  }

  /**
   * Issue an order that finalize has just moved to `processing` (leased to this runner), or is moving
   * there (`started`: the certificate is signed meanwhile and stored only if the move succeeded). Resolves
   * the certificate when the order is `valid` within `waitMs`; null when it is still being issued
   * (the client polls) or failed (the order then says why).
   */
  async issueNow(
    ca: CaRecord,
    order: AcmeOrderRecord,
    request: SignRequest,
    waitMs: number,
    started?: Promise<boolean>,
  ): Promise<CertificateRecord | null> {
    return raceTimeout(this.track(this.issue(ca, order, request, 0, started)), waitMs, null);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => {});
    return work;
  }

  /** One round: due validations (all of them, in batches), then lapsed issuances. */
  private async pass(): Promise<void> {
    const { acme } = this.deps;
    const concurrency = this.settings.concurrency ?? 8;
    for (;;) {
      if (this.closed) return;
      const claimed = await acme.claimValidations(this.owner, this.settings.leaseMs, concurrency);
      if (claimed.length === 0) break;
      await Promise.all(claimed.map((c) => this.track(this.validate(c))));
    }
    for (const { order, request, attempts } of await acme.claimIssuances(this.owner, this.settings.leaseMs, concurrency)) {
      const ca = await this.deps.store.getCa(order.caId);
      if (ca) await this.track(this.issue(ca, order, request, attempts));
      else await acme.applyChange(onIssuanceFailed(order.id, problem('serverInternal', 'The CA of the order no longer exists.'), null));
    }
  }

  /** Orders and authorizations past `expires` made invalid/expired (RFC 8555 §7.1.6). */
  private async expire(): Promise<void> {
    const expired = await this.deps.acme.expire(new Date(), onExpiry());
    if (expired > 0) this.deps.metrics?.acmeOrders('invalid', expired);
  }

  /** One attempt, recorded; the challenge as recorded (null: it was no longer `processing`). */
  private async validate(claimed: ClaimedValidation): Promise<AcmeChallengeRecord | null> {
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
    const result = this.result(challenge.attempts + 1, outcome);
    if (!(await this.deps.acme.applyChange(onValidation(claimed, result)))) return null;
    if (result.kind === 'invalid') this.deps.metrics?.acmeOrders('invalid'); // its authorization, so its order (RFC 8555 §7.1.6)
    const attempts = challenge.attempts + 1;
    if (result.kind === 'valid') return { ...challenge, status: 'valid', validated: result.at, error: null, attempts };
    return { ...challenge, status: result.kind === 'retry' ? 'processing' : 'invalid', error: result.problem, attempts };
  }

  private result(attempt: number, outcome: ValidationOutcome): ValidationResult {
    const now = new Date();
    if (outcome.valid) return { kind: 'valid', at: now };
    const error = problem(outcome.problem.type, outcome.problem.detail);
    if (outcome.retryable && attempt < this.settings.validationAttempts) {
      const delay = delayMs(BACKOFF_POLICIES.acmeValidationRetry(this.settings.validationRetryMs), attempt);
      return { kind: 'retry', problem: error, at: new Date(now.getTime() + delay) };
    }
    return { kind: 'invalid', problem: error };
  }

  /** Issue, and on failure record it: for good when retrying cannot help, else for another attempt later. */
  private async issue(
    ca: CaRecord,
    order: AcmeOrderRecord,
    request: SignRequest,
    attempts: number,
    started?: Promise<boolean>,
  ): Promise<CertificateRecord | null> {
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
        await this.deps.acme
          .applyChange(
            onIssuanceFailed(
              order.id,
              problem('serverInternal', 'The certificate of this order was issued but could not be attached to it.'),
              null,
            ),
          )
          .catch((f: unknown) => this.deps.logError('express-ca-api: ACME runner', f));
        return null;
      }
      const final = e instanceof CaError || e instanceof X509Error || attempts + 1 >= ISSUANCE_ATTEMPTS;
      if (!(e instanceof StoreUnavailableError)) this.deps.logError('express-ca-api: ACME runner', e);
      const detail = e instanceof CaError || e instanceof X509Error ? e.message : 'The certificate could not be issued.';
      // `attempts` failed before this one: this is failure number attempts + 1.
      const delay = delayMs(BACKOFF_POLICIES.acmeIssuanceRetry(this.settings.validationRetryMs), attempts + 1);
      const retryAt = final ? null : new Date(Date.now() + delay);
      if (final) this.deps.metrics?.acmeOrders('invalid');
      await this.deps.acme
        .applyChange(onIssuanceFailed(order.id, problem('serverInternal', detail), retryAt))
        .catch((f: unknown) => this.deps.logError('express-ca-api: ACME runner', f));
      return null;
    }
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
