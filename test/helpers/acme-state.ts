/**
 * The ACME store's changes as the ACME server makes them (lib/acme/state-machine.ts decides, the store
 * applies), for tests that drive `store.acme` directly: a validation recorded, an order finalized.
 */
import { onFinalize, onValidation, type ValidationResult } from '../../lib/acme/state-machine';
import type { AcmeStore, ClaimedValidation, SignRequest } from '../../lib/ports';
import { signRequest } from '../store/records';

/** Record a validation attempt of a claimed challenge; false when the challenge was no longer `processing`. */
export function record(acme: AcmeStore, claimed: ClaimedValidation | null | undefined, result: ValidationResult): Promise<boolean> {
  if (!claimed) throw new Error('no claimed validation');
  return acme.applyChange(onValidation(claimed, result));
}

/** Finalize: a `ready` order to `processing` with `request`, leased to `owner` for a minute; false when it was not `ready`. */
export function startIssuance(acme: AcmeStore, orderId: number, owner: string, request: SignRequest = signRequest()): Promise<boolean> {
  return acme.applyChange(onFinalize(orderId, request, { owner, until: new Date(Date.now() + 60_000) }, null));
}
