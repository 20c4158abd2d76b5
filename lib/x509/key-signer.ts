/**
 * The default `Signer`: a private key held in this process as a Node `KeyObject`.
 *
 * The key is parsed once (by `importPrivateKey`/`generatePrivateKey`) and reused for every signature;
 * the per-signature work is only the `crypto.sign` call and a lookup of prepared options.
 */
import * as crypto from 'crypto';
import { digestLength, nodeHashName } from './algorithms';
import { X509Error } from './errors';
import { keyTypeOf, publicKeyDer } from './keys';
import type { SignatureOptions, Signer } from './signer';
import type { KeyType } from './types';

export interface KeyObjectSignerOptions {
  /**
   * Where signatures are computed:
   * - `'inline'` (default): synchronously, on the calling thread. The callback form (libuv's thread
   *   pool) adds ~80-100 µs of CPU to every RSA-2048 signature here (~9%), and ECDSA/EdDSA signatures
   *   cost less than the hop itself; the price is that the event loop waits (~1 ms for RSA-2048).
   * - `'thread-pool'`: on libuv's thread pool, so that a server's event loop goes on serving requests
   *   while a slow signature is computed, and several signatures run in parallel on several cores.
   * - `'auto'`: the thread pool for RSA and DSA keys (about 1 ms and more per signature), inline for
   *   EC and EdDSA (tens of µs).
   */
  threads?: 'inline' | 'thread-pool' | 'auto';
}

export function keyObjectSigner(privateKey: crypto.KeyObject, options: KeyObjectSignerOptions = {}): Signer {
  if (privateKey.type !== 'private') throw new X509Error('key', 'A private key is required for signing');
  const keyType = keyTypeOf(privateKey);
  const spki = publicKeyDer(privateKey);
  const threads = options.threads ?? 'inline';
  const pooled = threads === 'thread-pool' || (threads === 'auto' && (keyType === 'RSA' || keyType === 'DSA'));
  return {
    keyType,
    publicKeyDer: spki,
    sign: (data, signOptions) => signWith(privateKey, keyType, data, signOptions, pooled),
  };
}

function signWith(key: crypto.KeyObject, keyType: KeyType, data: Buffer, options: SignatureOptions, pooled: boolean): Promise<Buffer> {
  try {
    const [digest, signKey] = prepare(key, keyType, options);
    if (!pooled) return Promise.resolve(crypto.sign(digest, data, signKey));
    return new Promise((resolve, reject) => {
      crypto.sign(digest, data, signKey, (error, signature) => (error ? reject(signFailed(error)) : resolve(signature)));
    });
  } catch (e) {
    return Promise.reject(e instanceof X509Error ? e : signFailed(e));
  }
}

type SignKey = crypto.KeyObject | crypto.SignKeyObjectInput;

function prepare(key: crypto.KeyObject, keyType: KeyType, options: SignatureOptions): [string | null, SignKey] {
  if (keyType === 'Ed25519' || keyType === 'Ed448') {
    if (options.hash !== null) {
      throw new X509Error('unsupported', `${keyType} keys do not allow an algorithm for signing.`);
    }
    return [null, key];
  }
  if (options.hash === null) {
    throw new X509Error('unsupported', `${keyType} keys require a hash algorithm for signing.`);
  }
  const digest = nodeHashName(options.hash);
  if (!digest) throw new X509Error('unsupported', `Unsupported hash algorithm: ${String(options.hash)}`);
  const padding = options.padding ?? 'pkcs1';
  if (keyType !== 'RSA') {
    if (options.padding !== undefined && options.padding !== 'pkcs1') {
      throw new X509Error('unsupported', `Padding "${padding}" is only available for RSA keys`);
    }
    // ECDSA and DSA signatures go into certificates as DER SEQUENCE { r, s }: Node's default encoding.
    return [digest, key];
  }
  if (padding === 'pss') {
    return [
      digest,
      {
        key,
        padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
        saltLength: options.saltLength ?? digestLength(options.hash),
      },
    ];
  }
  if (padding !== 'pkcs1') throw new X509Error('unsupported', `Unsupported RSA padding: ${String(padding)}`);
  return [digest, key];
}

function signFailed(e: unknown): X509Error {
  return new X509Error('key', `Signing failed: ${e instanceof Error ? e.message : String(e)}`);
}
