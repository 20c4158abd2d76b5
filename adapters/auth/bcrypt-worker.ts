/**
 * The code a bcrypt pool thread runs.
 *
 * JavaScript source for adapters/threads/worker-pool.ts (which says why it is evaluated source). bcryptjs is loaded from the
 * path the main thread resolved, so module resolution does not depend on the working directory.
 *
 * Protocol: request `{ id, op: 'compare', password, hash }` or `{ id, op: 'hash', password, rounds }`;
 * reply `{ id, threadId, ok: true, result }` or `{ id, threadId, ok: false, error }`.
 */
export interface BcryptRequest {
  id: number;
  op: 'compare' | 'hash';
  password: string;
  hash?: string;
  rounds?: number;
}

export interface BcryptWorkerData {
  bcryptPath: string;
}

export const BCRYPT_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData, threadId } = require('worker_threads');
const bcrypt = require(workerData.bcryptPath);
parentPort.on('message', (msg) => {
  try {
    const result = msg.op === 'hash'
      ? bcrypt.hashSync(msg.password, msg.rounds)
      : bcrypt.compareSync(msg.password, msg.hash);
    parentPort.postMessage({ id: msg.id, threadId, ok: true, result });
  } catch (e) {
    // Only the message: it never contains the password or the hash.
    parentPort.postMessage({ id: msg.id, threadId, ok: false, error: String(e && e.message || e) });
  }
});
`;
