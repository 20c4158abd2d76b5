/**
 * How the order runner (lib/ca/order-runner) has the issuing service make and store the certificates
 * of queued REST orders: the runner decides which orders and when (claims, leases, batches, retries);
 * signing and storing a certificate with its order stay here, with the other ways of keeping one
 * (issue.ts). The order's requester — the API user who placed it, with the address — is the
 * certificate's (migration 0017).
 */
import type { BatchOrderStore, CaRecord, NewCertificate, OrderRecord, Store } from '../../ports';
import { ORDER_LEASE_MS } from './place-order';
import { signCertificate, type SignedCertificate, type Signing } from './sign';

/** Sign a queued order's request with `ca`'s key: the certificate to store for it. IssuanceTaken if another runner has it. */
export function signOrder(signing: Signing, ca: CaRecord, order: OrderRecord, now?: Date): Promise<SignedCertificate> {
  return signCertificate(
    signing,
    ca,
    order.request,
    // Another runner's intent younger than the order lease: it is signing this order now (IssuanceTaken).
    { requester: order.requester ?? null, door: 'rest', answers: orderIntent(order.id), takeOverAfterMs: ORDER_LEASE_MS },
    now,
  );
}

/** What a REST order's intent answers: one certificate per order, whichever runner signs it. */
export function orderIntent(orderId: number): string {
  return `order:${orderId}`;
}

/**
 * An order whose intent has its certificate already — another runner stored it and could not mark the
 * order —: issued with that certificate. Null when the order is not pending any more (usually the
 * runner that stored it marked it in the same statement): nothing to do.
 */
export async function takeIssuedCertificate(
  store: Pick<Store, 'getOrder' | 'markOrderIssued'>,
  order: OrderRecord,
  certificateId: number,
): Promise<OrderRecord | null> {
  if ((await store.getOrder(order.slug))?.status !== 'pending') return null;
  return store.markOrderIssued(order.id, certificateId);
}

/** Signed orders of a batch. */
export type SignedOrder = { order: OrderRecord; certificate: NewCertificate };

/**
 * Store a batch's certificates with their orders in ONE statement (`BatchOrderStore.issueOrders`),
 * for those orders whose job `leaseOwner` still holds; the others' certificates are dropped. What was stored, by order.
 */
export function storeSignedOrders(
  store: BatchOrderStore,
  signed: readonly SignedOrder[],
  when: Date,
  leaseOwner: string,
): Promise<{ orderId: number; certificateId: number }[]> {
  return store.issueOrders(
    signed.map((s) => ({ order: s.order, certificate: s.certificate })),
    when,
    leaseOwner,
  );
}
