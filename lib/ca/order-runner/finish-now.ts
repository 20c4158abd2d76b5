/**
 * The runner's `finishNow` (ImmediateOrders, lib/ports): a new order signed at once, in the sign
 * request's turn, and written already issued with its certificate in one statement (the store's
 * `createIssuedOrder`, grouped with concurrent ones) — one write per order instead of the pending
 * INSERT now and the batch's statement later, and no batch read of the CA: the caller hands over the
 * CA it has just checked, and the statement writes nothing if that CA is revoked by then
 * (docs/DESIGN.md "Orders signed in the request").
 *
 * A fast path only: whatever does not go smoothly returns null, and the caller places the order
 * pending for the queued path (batch.ts, single-order.ts), which signs again and records the reason
 * (docs/reference/differences.md D3). A certificate signed here and refused by the statement is not issued;
 * its intent records the signature and why (issue.ts `keepSigned`). An outage is thrown, for the caller's 503 (docs/reference/differences.md D21).
 */
import { signCertificate, type SignedCertificate } from '../issuance/sign';
import { keepAsIssuedOrder, keepSigned } from '../issuance/issue';
import { CaError } from '../errors';
import { storableRequest } from '../key-backends';
import { hasIssuedOrders, isConnectionLost, type CaRecord, type NewOrder, type OrderRecord } from '../../ports';
import type { RunnerContext } from './runner-context';

export async function finishNow(c: RunnerContext, order: NewOrder, ca: CaRecord): Promise<OrderRecord | null> {
  const { store } = c;
  if (!hasIssuedOrders(store) || order.caId !== ca.id) return null;
  let certificate: SignedCertificate;
  try {
    certificate = await signCertificate(c.signing, ca, order.request, { requester: order.requester ?? null, door: 'rest' });
  } catch {
    return null; // the queued path signs it again and records why it fails
  }
  let issued: OrderRecord | null;
  try {
    const request = storableRequest(c.signing.keyBackends, ca, order.request); // signed already: keep no secret
    // Refused (the CA was revoked or removed meanwhile): not issued; its intent records the signature and why (issue.ts).
    issued = await keepSigned(c.signing.intents, certificate, async (signed) => {
      const stored = await keepAsIssuedOrder(store, { ...order, request })(signed);
      if (!stored) throw new CaError('conflict', 'The certificate authority was revoked or removed while the certificate was signed.');
      return stored;
    });
  } catch (e) {
    if (isConnectionLost(e)) throw e;
    if (!(e instanceof CaError))
      c.logError('express-ca-api: an order signed in the request could not be stored; it takes the queued path', e);
    return null;
  }
  c.announce([issued]);
  return issued;
}
