/**
 * newNonce (RFC 8555 §7.2): HEAD → 200, GET → 204, both with a fresh `Replay-Nonce` (the module adds
 * it to every answer) and `Cache-Control: no-store`. A POST-as-GET is answered like GET (§6.3), which
 * the original refuses.
 */
import type { AcmeAnswer } from '../route-types';

export async function headNonce(): Promise<AcmeAnswer> {
  return { status: 200, headers: { 'Cache-Control': 'no-store' } };
}

export async function getNonce(): Promise<AcmeAnswer> {
  return { status: 204, headers: { 'Cache-Control': 'no-store' } };
}
