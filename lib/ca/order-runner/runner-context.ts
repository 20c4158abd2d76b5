/**
 * What the two ways of finishing orders (one per transaction, or a batch) share with the runner that
 * drives them (in-process.ts).
 */
import type { Signing } from '../issuance/sign';
import { StoreConflictError, StoreNotFoundError, StoreUnavailableError, type OrderRecord, type Store } from '../../ports';
import type { OrderIntake } from './order-intake';

export interface RunnerContext {
  store: Store;
  /** This runner's name (`OrderRunner.leaseOwner`): orders leased to it are its own to take. */
  leaseOwner: string;
  /** How the issuing service signs (lib/ca/issuance/sign.ts). */
  signing: Signing;
  /** A transaction that fails this often for one order marks it failed. */
  maxAttempts: number;
  /** Failed transactions per order id (a database error aborts the transaction that would record it). */
  attempts: Map<number, number>;
  intake: OrderIntake;
  logError: (message: string, error: unknown) => void;
  /** Tell the listeners about orders whose transaction has committed. */
  announce(orders: readonly OrderRecord[]): void;
}

/** A readable reason for the order's `error` field (docs/reference/differences.md D3). */
export function reasonOf(error: unknown): string {
  const message = error instanceof Error && error.message ? error.message : 'Could not sign certificate.';
  return message.length > 256 ? `${message.slice(0, 253)}...` : message;
}

/**
 * Whether `error` is the store's (the database failed or refused the write, so the transaction cannot
 * record a failure and the order is retried) rather than the rules' (the order fails with that
 * reason). Stores throw the typed errors of lib/ports; the runner knows no database error codes.
 */
export function isStoreError(error: unknown): boolean {
  return error instanceof StoreUnavailableError || error instanceof StoreConflictError || error instanceof StoreNotFoundError;
}
