/**
 * The default `SignatureVerifier` (lib/ports/crypto.ts): public keys loaded and signatures checked on
 * worker threads, so that the event loop of a server under sign requests keeps to HTTP, validation
 * and the database (docs/DESIGN.md "Issuance throughput"). One thread fewer than the machine has
 * cores (at least one, at most four): the event loop keeps one.
 */
import { verifyParameters, type SignatureAlgorithm } from '../../lib/x509/algorithms';
import { X509Error } from '../../lib/x509/errors';
import { publicKeyJwk } from '../../lib/x509/public-key-object';
import type { SignatureVerifier } from '../../lib/ports';
import { defaultThreadCount, WorkerPool } from '../threads/worker-pool';
import { VERIFY_WORKER_SOURCE, type VerifyOutcome, type VerifyRequest } from './verify-worker';

export interface SignatureVerifierPool extends SignatureVerifier {
  readonly size: number;
  /** Thread ids that answered, with how many checks each (tests, diagnostics). */
  tasksByThread(): Record<number, number>;
  close(): Promise<void>;
}

const NAME = 'signature verifier';
/** How the pool prefixes an error a thread reported (adapters/threads/worker-pool.ts). */
const THREAD_ERROR = `${NAME}: `;

export function signatureVerifierPool(options: { size?: number } = {}): SignatureVerifierPool {
  const size = options.size ?? defaultThreadCount();
  const pool = new WorkerPool<VerifyRequest, VerifyOutcome>({ source: VERIFY_WORKER_SOURCE, size, name: NAME, tasksPerThread: 32 });
  return {
    size: pool.size,
    async verify(algorithm: SignatureAlgorithm, spkiDer: Buffer, data: Buffer, signature: Buffer): Promise<boolean> {
      const parameters = verifyParameters(algorithm); // X509Error('unsupported') here, as verifySignature throws it
      let outcome: VerifyOutcome;
      try {
        const bytes = new ArrayBuffer(spkiDer.length + data.length + signature.length);
        const view = new Uint8Array(bytes);
        view.set(spkiDer, 0);
        view.set(data, spkiDer.length);
        view.set(signature, spkiDer.length + data.length);
        const request = { jwk: publicKeyJwk(spkiDer), bytes, spkiLength: spkiDer.length, dataLength: data.length, ...parameters };
        outcome = await pool.run(request, [bytes]);
      } catch (e) {
        // The thread's own answer "cannot load this key" (`name: message`); a closed pool or a dead thread is no verdict.
        const message = (e as Error).message;
        if (!message.startsWith(THREAD_ERROR)) throw e;
        throw new X509Error('key', `cannot load public key: ${message.slice(THREAD_ERROR.length)}`);
      }
      return outcome === 'verified';
    },
    tasksByThread: () => ({ ...pool.tasksByThread }),
    close: () => pool.close(),
  };
}
