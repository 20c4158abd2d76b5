/**
 * Sign and resign through the API: the order desk (docs/COMPATIBILITY.md §3.1; docs/reference/differences.md D3, D4), in
 * front of the issuing service (lib/ca/issuance/place-order.ts), which places the order.
 *
 * Everything that can be checked is checked before the order row exists (D3), in the order the
 * original reports it: PEM framing (422 on `csr`), CSR parse and self-signature (400, D4), the CA
 * (404), then subject/extensions/profile/not_after against the CA and the profiles (422, D1, D9).
 * Where this process runs the order runner, the desk then asks it to finish the order at once
 * (`finishNow`: signed and written already issued). Otherwise — or when that fast path declines —
 * the order is written `pending`, the runner is woken, and the desk gives it up to `orderWaitMs` to
 * finish. The answer is the order as placed (`pending`, as upstream) either way; signing or waiting
 * only means that the client's first poll usually finds the certificate.
 */
import type { ApiUser, MetricsSink, OrderRecord, OrderRunner, SignatureVerifier, Store } from '../ports';
import { parseVerifiedCsr, type ParsedCsr } from '../x509/csr';
import { X509Error, invalid } from '../x509/errors';
import { isPlainObject } from '../x509/plain-object';
import { prepareResignRequest } from './resign-request';
import { CaError, notFoundError } from '../ca/errors';
import { apiUserActor } from '../ca/actors';
import { placeOrder, type OrderRequester } from '../ca/issuance/place-order';
import { loadPolicyContext } from '../ca/policy/context';
import { prepareSignRequestJson } from './sign-request-json';
import type { KeyBackends } from '../ca/key-backends';
import type { Profiles } from '../ca/profiles';
import { visibleCa } from './visibility';

const PEM_BEGIN = '-----BEGIN CERTIFICATE REQUEST-----\n';
const PEM_END = '\n-----END CERTIFICATE REQUEST-----';

/** What placing an order needs: where orders go, who processes them, how long to wait for one. */
export interface OrderDesk {
  store: Store;
  /**
   * CA reads for sign (a short-lived cache is fine: the runner re-reads the CA before it signs, and an
   * order finished in the request is written only if its CA is not revoked by then).
   */
  cas: Pick<Store, 'findCaBySerial' | 'getCa' | 'listCas'>;
  orders: { getOrder(slug: string): Promise<OrderRecord | null>; waitUntilFinished(orderId: number, timeoutMs: number): Promise<void> };
  orderRunner: OrderRunner | null;
  orderWaitMs: number;
  /** The router's `signInRequest` option: ask the runner to finish orders in the request. */
  signInRequest: boolean;
  profiles: Profiles;
  defaultProfile: string;
  defaultExpiresMs: number;
  /** Which per-use key options an order row may keep (`storableRequest`). */
  keyBackends: KeyBackends;
  /** Checks CSR self-signatures off the event loop; absent: libuv's thread pool (`verifySignatureAsync`). */
  signatureVerifier?: SignatureVerifier | null;
  /** Where the latency of orders signed in the request is reported (docs/operations/metrics.md). */
  metrics?: MetricsSink;
}

/** The original's PEM framing check (a 422 on `csr`), before the CSR is parsed. */
function checkPemFraming(csr: string): void {
  if (!csr.startsWith(PEM_BEGIN) || !csr.trim().endsWith(PEM_END)) throw invalid('Invalid PEM data.', ['csr']);
}

/** Parse and verify the CSR: 400 `Unable to parse CSR.` or a 400 naming the failed signature (D4). */
async function checkCsr(csr: string, verifier: SignatureVerifier | null | undefined): Promise<ParsedCsr> {
  try {
    // Verified off the event loop (docs/DESIGN.md "Issuance throughput").
    return await parseVerifiedCsr(csr, verifier ? (alg, spki, data, sig) => verifier.verify(alg, spki, data, sig) : undefined);
  } catch (e) {
    if (e instanceof X509Error && e.code === 'signature') {
      throw new CaError('invalid', 'The signature of the CSR does not verify: the request was not signed with the key it contains.');
    }
    if (e instanceof X509Error) throw new CaError('invalid', 'Unable to parse CSR.');
    throw e;
  }
}

function keyBackendOptions(body: Record<string, unknown>): Record<string, unknown> {
  return isPlainObject(body.key_backend_options) ? body.key_backend_options : {};
}

export interface OrderCall {
  caSerial: string;
  /** The API user placing the order. */
  user: ApiUser;
  /** The client's address (`req.ip`), recorded with the order's events. */
  address?: string | null;
  /** The validated request body. */
  body: Record<string, unknown>;
  now: Date;
}

/** The order's owner and the actor of its events: the API user, from the client's address. */
function requesterOf(call: OrderCall): OrderRequester {
  return { userId: call.user.id, actor: apiUserActor(call.user, call.address) };
}

/** `POST /ca/{serial}/sign/`: validate everything, then place the order. */
export async function signThroughOrder(desk: OrderDesk, call: OrderCall): Promise<OrderRecord> {
  const { body, now } = call;
  const csr = body.csr as string;
  checkPemFraming(csr);
  const parsedCsr = await checkCsr(csr, desk.signatureVerifier);
  const ca = await visibleCa(desk.cas, call.caSerial, now, { allowExpired: false });
  const request = prepareSignRequestJson(
    {
      csr: parsedCsr, // checkCsr above parsed and verified it
      subject: body.subject,
      algorithm: body.algorithm,
      notAfter: body.not_after,
      extensions: body.extensions,
      profile: body.profile,
      autogenerated: body.autogenerated,
      keyBackendOptions: keyBackendOptions(body),
    },
    {
      ca,
      profiles: desk.profiles,
      defaultProfile: desk.defaultProfile,
      defaultExpiresMs: desk.defaultExpiresMs,
      now,
      policy: await loadPolicyContext(desk.cas, ca),
    },
  );
  return placeOrder(desk, ca, requesterOf(call), request, now);
}

/** `POST /ca/{serial}/certs/{serial}/resign/`: the stored CSR signed again (current CA and profile). */
export async function resignThroughOrder(desk: OrderDesk, call: OrderCall & { certificateSerial: string }): Promise<OrderRecord> {
  const { body, now } = call;
  const ca = await visibleCa(desk.store, call.caSerial, now, { allowExpired: false });
  const cert = await desk.store.findCertificate(ca.id, call.certificateSerial);
  if (!cert) throw notFoundError();
  const request = prepareResignRequest({
    ca,
    policy: await loadPolicyContext(desk.cas, ca),
    cert,
    profiles: desk.profiles,
    notAfter: body.not_after,
    keyBackendOptions: keyBackendOptions(body),
    defaultExpiresMs: desk.defaultExpiresMs,
    now,
  });
  return placeOrder(desk, ca, requesterOf(call), request, now);
}

/**
 * `GET /ca/{serial}/orders/{slug}/`: the caller's own order on this CA. The CA must be API-enabled;
 * its `enabled` flag and validity do not matter (upstream). Anything else — unknown slug, another
 * user's order, another CA — is not found (docs/reference/differences.md D2; upstream answers 500).
 */
export async function ownOrder(
  desk: Pick<OrderDesk, 'orders' | 'cas'>,
  caSerial: string,
  slug: string,
  userId: number,
): Promise<OrderRecord> {
  const order = await desk.orders.getOrder(slug);
  if (!order || order.userId !== userId) throw notFoundError();
  const ca = await desk.cas.getCa(order.caId);
  if (!ca || ca.serial !== caSerial || !ca.apiEnabled) throw notFoundError();
  return order;
}
