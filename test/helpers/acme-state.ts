/**
 * The ACME store's changes as the ACME server makes them (lib/acme/state-machine.ts decides, the store
 * applies), for tests that drive `store.acme` directly: a validation recorded, an order finalized.
 */
import { onFinalize, onValidation, type ValidationResult } from '../../lib/acme/state-machine';
import { JOB_KINDS, type AcmeStore, type ClaimedValidation, type SignRequest } from '../../lib/ports';
import { signRequest } from '../store/records';

/**
 * Record a validation attempt of a started challenge with its job's outcome, as `owner` (who holds the
 * job's lease: the owner `startValidation` was given); false when nothing applied.
 */
export function record(
  acme: AcmeStore,
  claimed: ClaimedValidation | null | undefined,
  result: ValidationResult,
  owner = 'test-runner',
): Promise<boolean> {
  if (!claimed) throw new Error('no claimed validation');
  return acme.applyChange(
    onValidation(claimed, result, { kind: JOB_KINDS.acmeValidation, reference: String(claimed.challenge.id), owner }),
  );
}

/** Finalize: a `ready` order to `processing` with `request`, its job leased to `owner` for a minute; false when it was not `ready`. */
export function startIssuance(acme: AcmeStore, orderId: number, owner: string, request: SignRequest = signRequest()): Promise<boolean> {
  const job = { kind: JOB_KINDS.acmeIssuance, reference: String(orderId), owner, leaseMs: 60_000 };
  return acme.applyChange(onFinalize(orderId, request, job, null));
}
