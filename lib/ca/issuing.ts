/**
 * The issuing service: the one way a certificate comes into being, whoever asks. A prepared
 * `SignRequest` (lib/ca/issuance.ts checked everything that can be checked before it) is
 *
 *   - issued now and stored — `ca-admin sign_cert`/`resign_cert` (`issueNow`), or
 *   - placed as an order — the REST API's sign and resign, next ACME finalize (`placeOrder`): the
 *     order runner of this process finishes it in the request where it can, else it is queued for a
 *     runner (this process's or another's), and the caller waits a little for it;
 *
 * and a certificate signed elsewhere is stored by `importCertificate` (`ca-admin import_cert`).
 * What happened is recorded by the store in the same transaction as the certificate: the
 * `certificate.issued` / `certificate.imported` / `order.failed` events (docs/DESIGN.md "Domain
 * events"), naming the order's API user or the store's actor. Claiming and leasing orders stays
 * behind the store and runner ports (lib/ca/order-runner).
 */
import {
  hasImmediateOrders,
  type CaRecord,
  type CertificateRecord,
  type MetricsSink,
  type NewCertificate,
  type OrderRecord,
  type OrderRunner,
  type SignRequest,
  type Store,
} from '../ports';
import { parseCertificate } from '../x509/certificate';
import { CaError } from './errors';
import { certificateFromRequest } from './issuance';
import { storableRequest, type KeyBackends } from './key-backends';
import type { Profiles } from './profiles';
import { newCertificateRecord } from './records';

/** What signing needs. */
export interface Signing {
  store: Store;
  keyBackends: KeyBackends;
  profiles: Profiles;
  defaultExpiresMs?: number;
}

/** Sign `request` with `ca`'s key now and store the certificate (one transaction). */
export async function issueNow(signing: Signing, ca: CaRecord, request: SignRequest, now?: Date): Promise<CertificateRecord> {
  const certificate = await certificateFromRequest({ ...signing, ca, request, now });
  return signing.store.transaction((tx) => tx.insertCertificate(certificate));
}

/**
 * Sign `request` with `ca`'s key now and hand the certificate to `keep`, which stores it together
 * with what asked for it — ACME finalize: the certificate and its order's `valid` in one transaction
 * (lib/acme/issue.ts).
 */
export async function issueInto(
  signing: Omit<Signing, 'store'>,
  ca: CaRecord,
  request: SignRequest,
  keep: (certificate: NewCertificate) => Promise<CertificateRecord>,
  now?: Date,
): Promise<CertificateRecord> {
  return keep(await certificateFromRequest({ ...signing, ca, request, now }));
}

/** A certificate signed elsewhere, stored under `ca` with no CSR and no profile (docs/COMPATIBILITY.md §4.4). */
export async function importCertificate(store: Store, ca: CaRecord, certificate: string | Buffer): Promise<CertificateRecord> {
  const parsed = parseCertificate(certificate);
  if ((await store.findCertificateBySerial(parsed.serial)).some((c) => c.caId === ca.id)) {
    throw new CaError('conflict', `${parsed.serial}: Certificate already exists.`);
  }
  return store.insertCertificate(newCertificateRecord(parsed, { caId: ca.id, csr: null }));
}

/** Where orders go and who finishes them. */
export interface OrderQueue {
  store: Pick<Store, 'createOrder'>;
  /** Which per-use key options an order row may keep (`storableRequest`). */
  keyBackends: KeyBackends;
  orderRunner: OrderRunner | null;
  /** Ask the runner to finish orders in the request (router option `signInRequest`). */
  signInRequest: boolean;
  /** How long to wait for a queued order before answering (router option `orderWaitMs`). */
  orderWaitMs: number;
  orders: { waitUntilFinished(orderId: number, timeoutMs: number): Promise<void> };
  /** Told how long an order signed in the request took (README "Metrics"); queued ones are the runner's to tell. */
  metrics?: MetricsSink;
}

/**
 * How long an order is left to the runner of the instance that wrote it before the runners of other
 * instances may take it (`OrderRunner.leaseOwner`): long enough for a busy runner to reach it, short
 * enough that a crashed instance's orders are soon finished by another.
 */
export const ORDER_LEASE_MS = 5000;

/**
 * Place an order for `request` on behalf of API user `userId`: finished at once by this process's
 * runner where it can (signed and written already issued, in one statement), else written pending,
 * handed to the runner, and waited for up to `orderWaitMs`. Returns the order as placed (`pending`,
 * as upstream answers even when it signed at once: docs/COMPATIBILITY.md §3.1). `requested`: when the
 * request came in, for the issuance latency of an order signed at once.
 */
export async function placeOrder(
  queue: OrderQueue,
  ca: CaRecord,
  userId: number,
  request: SignRequest,
  requested?: Date,
  address?: string | null,
): Promise<OrderRecord> {
  const runner = queue.orderRunner;
  const from = address ? { address } : {}; // recorded with the order's events (the audit log)
  if (queue.signInRequest && runner && hasImmediateOrders(runner)) {
    const issued = await runner.finishNow({ caId: ca.id, userId, request, ...from }, ca);
    if (issued) {
      if (requested) queue.metrics?.issuanceCompleted('in_request', (Date.now() - requested.getTime()) / 1000);
      return asPlaced(issued);
    }
  }
  const owner = runner?.leaseOwner;
  const lease = owner ? { owner, expires: new Date(Date.now() + ORDER_LEASE_MS) } : undefined;
  const stored = storableRequest(queue.keyBackends, ca, request);
  const order = await queue.store.createOrder({ caId: ca.id, userId, request: stored, ...from, ...(lease ? { lease } : {}) });
  // This process's runner signs with the options as given; the row keeps only what may be stored.
  runner?.notify(stored === request ? order : { ...order, request });
  await queue.orders.waitUntilFinished(order.id, queue.orderWaitMs);
  return order;
}

/** The answer to sign/resign: the order as placed, as upstream answers even when it signed at once. */
function asPlaced(order: OrderRecord): OrderRecord {
  return { ...order, status: 'pending', certificateSerial: null, certificateId: null, error: null, updated: order.created };
}
