/**
 * Raw RSA decryption (RSADP) on worker threads, for the SCEP RA key of the default key backend
 * (adapters/keys/default-backend.ts): an RSA-2048 private operation costs the event loop about half a
 * millisecond, an eighth of what a whole SCEP PKCSReq costs it (docs/DESIGN.md "Enrolment
 * throughput"); posted to a thread, about 30 µs. Node has no asynchronous `privateDecrypt`, so libuv's
 * pool (which the RA's signatures use) cannot take it. One thread fewer than the machine has cores (at
 * least one, at most four), as the signature verifier pool (verify-pool.ts).
 */
import type { KeyObject } from 'crypto';
import { defaultThreadCount, WorkerPool } from '../threads/worker-pool';
import { RSA_DECRYPT_WORKER_SOURCE, type RsaDecryptRequest } from './rsa-decrypt-worker';

export interface RsaDecryptPool {
  /** RSADP of `block` with `key`; rejects when the block is no ciphertext for the key (as `privateDecrypt` throws). */
  decryptRaw(key: KeyObject, block: Buffer): Promise<Buffer>;
}

export function rsaDecryptPool(options: { size?: number } = {}): RsaDecryptPool {
  const size = options.size ?? defaultThreadCount();
  const pool = new WorkerPool<RsaDecryptRequest, ArrayBuffer>({
    source: RSA_DECRYPT_WORKER_SOURCE,
    size,
    name: 'RSA decryption',
    tasksPerThread: 8,
  });
  return {
    async decryptRaw(key, block) {
      // Exactly the block's bytes, moved (a Buffer's ArrayBuffer may be an 8 KiB pool shared by others).
      const bytes = new Uint8Array(block).buffer;
      return Buffer.from(await pool.run({ key, block: bytes }, [bytes]));
    },
  };
}
