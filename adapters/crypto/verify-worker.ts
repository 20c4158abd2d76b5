/**
 * The code a signature-verification thread runs (JavaScript source for adapters/threads/worker-pool.ts,
 * which says why it is evaluated source). Node's own crypto only: the main thread sends what
 * lib/x509 worked out (`verifyParameters`, the key as a JWK where one expresses it), so the thread
 * loads no module of ours.
 *
 * Protocol: request `{ id, jwk | null, spki, data, signature, digest, padding?, saltLength?, keyTypes }`;
 * reply `{ id, threadId, ok: true, result: 'verified' | 'failed' | 'misfit' }` or
 * `{ id, threadId, ok: false, error }` (the key could not be loaded: OpenSSL's message).
 */
export interface VerifyRequest {
  jwk: object | null;
  spki: Buffer;
  data: Buffer;
  signature: Buffer;
  digest: string | null;
  padding?: number;
  saltLength?: number;
  keyTypes: readonly string[];
}

export type VerifyOutcome = 'verified' | 'failed' | 'misfit';

export const VERIFY_WORKER_SOURCE = `
'use strict';
const crypto = require('crypto');
const { parentPort, threadId } = require('worker_threads');
function load(m) {
  if (m.jwk) {
    try { return crypto.createPublicKey({ key: m.jwk, format: 'jwk' }); } catch {}
  }
  return crypto.createPublicKey({ key: Buffer.from(m.spki), format: 'der', type: 'spki' });
}
parentPort.on('message', (m) => {
  let key;
  try {
    key = load(m);
  } catch (e) {
    parentPort.postMessage({ id: m.id, threadId, ok: false, error: String(e && e.message || e) });
    return;
  }
  let result = 'misfit';
  if (m.keyTypes.includes(key.asymmetricKeyType)) {
    const input = m.padding === undefined ? key : (m.saltLength === undefined ? { key, padding: m.padding } : { key, padding: m.padding, saltLength: m.saltLength });
    try {
      result = crypto.verify(m.digest, m.data, input, m.signature) ? 'verified' : 'failed';
    } catch {
      result = 'failed'; // malformed signatures (bad DER, wrong length) do not verify
    }
  }
  parentPort.postMessage({ id: m.id, threadId, ok: true, result });
});
`;
