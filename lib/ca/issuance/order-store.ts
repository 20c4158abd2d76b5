/**
 * How the order runner (lib/ca/order-runner) has the issuing service make and store the certificates
 * of queued REST orders: the runner decides which orders and when (claims, leases, batches, retries);
 * signing and storing a certificate with its order stay here, with the other ways of keeping one
 * (issue.ts). The order's requester — the API user who placed it, with the address — is the
 * certificate's (migration 0017).
 */
import type { BatchOrderStore, CaRecord, NewCertificate, OrderRecord, Store } from '../../ports';
import { signCertificate, type Signing } from './sign';

/** Sign a queued order's request with `ca`'s key: the certificate to store for it. */
export function signOrder(signing: Signing, ca: CaRecord, order: OrderRecord, now?: Date): Promise<NewCertificate> {
  return signCertificate(signing, ca, order.request, order.requester ?? null, now);
}

/** Inside the transaction that claimed `order`: sign it, store the certificate, mark the order issued. */
export async function issueClaimedOrder(signing: Signing, tx: Store, ca: CaRecord, order: OrderRecord): Promise<OrderRecord> {
  const certificate = await tx.insertCertificate(await signOrder(signing, ca, order));
  return tx.markOrderIssued(order.id, certificate.id);
}

/** Signed orders of a batch. */
export type SignedOrder = { order: OrderRecord; certificate: NewCertificate };

/**
 * Store a batch's certificates with their orders in ONE statement (`BatchOrderStore.issueOrders`),
 * for those orders still claimable; the others' certificates are dropped. What was stored, by order.
 */
export function storeSignedOrders(
  store: BatchOrderStore,
  signed: readonly SignedOrder[],
  when: Date,
  leaseOwner?: string,
): Promise<{ orderId: number; certificateId: number }[]> {
  return store.issueOrders(
    signed.map((s) => ({ orderId: s.order.id, certificate: s.certificate })),
    when,
    leaseOwner,
  );
}
