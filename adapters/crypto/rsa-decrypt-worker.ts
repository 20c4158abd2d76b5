/**
 * The code an RSA decryption thread runs (JavaScript source for adapters/threads/worker-pool.ts, which
 * says why it is evaluated source): RSADP (RFC 8017 §5.1.2) by OpenSSL, which blinds it, for the SCEP
 * RA key (lib/ports/keys.ts `KeyDecryption`). Node's own crypto only.
 *
 * Protocol: request `{ id, key, block }` — `key` a private KeyObject (postMessage clones it: the
 * thread gets a handle to the same key, nothing is serialised), `block` an ArrayBuffer of the
 * ciphertext block, transferred; reply `{ id, threadId, ok: true, result }` with the raw RSADP output
 * as an ArrayBuffer, or `{ id, threadId, ok: false, error }` whose text never holds key or data.
 */
import type { KeyObject } from 'crypto';

export interface RsaDecryptRequest {
  key: KeyObject;
  block: ArrayBuffer;
}

export const RSA_DECRYPT_WORKER_SOURCE = `
'use strict';
const crypto = require('crypto');
const { parentPort, threadId } = require('worker_threads');
parentPort.on('message', (m) => {
  let out;
  try {
    out = crypto.privateDecrypt({ key: m.key, padding: crypto.constants.RSA_NO_PADDING }, Buffer.from(m.block));
  } catch {
    parentPort.postMessage({ id: m.id, threadId, ok: false, error: 'the block is no RSA ciphertext for this key' });
    return;
  }
  const result = out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
  out.fill(0);
  parentPort.postMessage({ id: m.id, threadId, ok: true, result }, [result]);
});
`;
