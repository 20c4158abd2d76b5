/**
 * The code a signature-verification thread runs (JavaScript source for adapters/threads/worker-pool.ts,
 * which says why it is evaluated source). Node's own crypto only: the main thread sends what
 * lib/x509 worked out (`verifyParameters`, the key as a JWK where one expresses it), so the thread
 * loads no module of ours.
 *
 * Protocol: request `{ id, jwk | null, bytes, spkiLength, dataLength, digest, padding?, saltLength?, keyTypes }`
 * where `bytes` (an ArrayBuffer, transferred) holds the SubjectPublicKeyInfo, the signed data and the
 * signature, one after the other;
 * reply `{ id, threadId, ok: true, result: 'verified' | 'failed' | 'misfit' }` or
 * `{ id, threadId, ok: false, error }` (the key could not be loaded: OpenSSL's message).
 */
export interface VerifyRequest {
  jwk: object | null;
  /**
   * One ArrayBuffer of exactly these bytes, moved to the thread: posting Buffers would copy the whole
   * pool each small Buffer lives in (8 KiB apiece), which cost the event loop more than the check.
   */
  bytes: ArrayBuffer;
  spkiLength: number;
  dataLength: number;
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
function load(m, spki) {
  if (m.jwk) {
    try { return crypto.createPublicKey({ key: m.jwk, format: 'jwk' }); } catch {}
  }
  return crypto.createPublicKey({ key: spki, format: 'der', type: 'spki' });
}
parentPort.on('message', (m) => {
  const bytes = Buffer.from(m.bytes);
  const spki = bytes.subarray(0, m.spkiLength);
  const data = bytes.subarray(m.spkiLength, m.spkiLength + m.dataLength);
  const signature = bytes.subarray(m.spkiLength + m.dataLength);
  let key;
  try {
    key = load(m, spki);
  } catch (e) {
    parentPort.postMessage({ id: m.id, threadId, ok: false, error: String(e && e.message || e) });
    return;
  }
  let result = 'misfit';
  if (m.keyTypes.includes(key.asymmetricKeyType)) {
    const input = m.padding === undefined ? key : (m.saltLength === undefined ? { key, padding: m.padding } : { key, padding: m.padding, saltLength: m.saltLength });
    try {
      result = crypto.verify(m.digest, data, input, signature) ? 'verified' : 'failed';
    } catch {
      result = 'failed'; // malformed signatures (bad DER, wrong length) do not verify
    }
  }
  parentPort.postMessage({ id: m.id, threadId, ok: true, result });
});
`;
