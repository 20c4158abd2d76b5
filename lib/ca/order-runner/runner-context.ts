/**
 * What the two ways of finishing orders (one at a time, or a batch) share with the runner that
 * drives them (in-process.ts).
 */
import type { Signing } from '../issuance/sign';
import {
  StoreConflictError,
  StoreNotFoundError,
  StoreUnavailableError,
  type BatchOrderStore,
  type JobStoreProvider,
  type OrderRecord,
  type Store,
} from '../../ports';
import type { OrderIntake } from './order-intake';

/** What the order runner needs of the store: orders, their batch writes, and the jobs they are claimed through. */
export type OrderRunnerStore = Store & BatchOrderStore & JobStoreProvider;

export interface RunnerContext {
  store: OrderRunnerStore;
  /**
   * This runner's name (`OrderRunner.leaseOwner`): the jobs of the orders placed with it are leased to
   * it, and its batches claim jobs under it.
   */
  leaseOwner: string;
  /** How the issuing service signs (lib/ca/issuance/sign.ts). */
  signing: Signing;
  /** An order the store refused this often (its job's `attempts`) is marked failed. */
  maxAttempts: number;
  /** The poll interval: the first wait of the back-off after a refused order (lib/work/policies.ts `restOrderRetry`). */
  pollIntervalMs: number;
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
