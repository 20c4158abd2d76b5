/**
 * The built-in key backend (alias `default`): CA private keys stored in the CA row's
 * `key_backend_options`, encrypted under a key-encryption key (see kek.ts).
 *
 * Stored options: `{ "privateKey": <EncryptedKeyEnvelope> }` — the PKCS#8 DER of the key, encrypted.
 * Decrypting and parsing a key costs far more than one signature (re-parsing per signature made
 * P-256 signing ~15x slower), so signers are cached per stored ciphertext for the backend's lifetime.
 */
import * as crypto from 'crypto';
import { rsaDecryptPool, type RsaDecryptPool } from '../crypto/rsa-decrypt-pool';
import type { KekRotatingKeyBackend, KeyBackend, KeyDecryption, KeySpec, RawRsaDecrypter, StoredKey } from '../../lib/ports';
import { exportPrivateKey, generatePrivateKey, importPrivateKey, publicKeyDer } from '../../lib/x509/keys';
import { keyObjectSigner, type KeyObjectSignerOptions } from '../../lib/x509/key-signer';
import type { Signer } from '../../lib/x509/signer';
import { KeyBackendError } from './errors';
import { decryptKey, encryptKey, loadKek, missingKekError, parseEnvelope, type Kek } from './kek';
import { kekRotation } from './kek-rotation';

export const DEFAULT_KEY_BACKEND_ALIAS = 'default';

/** Enough for every CA of a large installation; an evicted signer is rebuilt on its next use. */
const SIGNER_CACHE_SIZE = 256;

export interface DefaultKeyBackendOptions {
  /** 32 bytes, base64 (or a raw Buffer). Default: the CA_KEY_ENCRYPTION_KEY environment variable. */
  keyEncryptionKey?: string | Buffer;
  /**
   * Where signatures are computed (lib/x509/key-signer.ts). Default `'auto'`: RSA and DSA signatures
   * (a millisecond and more) on libuv's thread pool, so that the server keeps answering requests and
   * a batch of orders is signed on every core; EC and EdDSA signatures inline (cheaper than the hop).
   */
  signingThreads?: KeyObjectSignerOptions['threads'];
  /**
   * Where the SCEP RA key decrypts (`getDecrypter`). Default `'worker'`: on a worker thread
   * (adapters/crypto/rsa-decrypt-pool.ts), as Node has no asynchronous RSA decryption; `'inline'`: on
   * the calling thread, which then waits about half a millisecond per request.
   */
  decryptionThreads?: 'worker' | 'inline';
}

/** A stored key opened: the key object and its signer. */
interface OpenedKey {
  key: crypto.KeyObject;
  signer: Signer;
}

export function defaultKeyBackend(options: DefaultKeyBackendOptions = {}): KeyBackend & KekRotatingKeyBackend & KeyDecryption {
  // Read once: a malformed KEK fails here, at start-up, rather than at the first signature.
  const kek = loadKek(options.keyEncryptionKey);
  const keys = new Map<string, OpenedKey>();
  const threads = options.signingThreads ?? 'auto';
  const inlineDecryption = options.decryptionThreads === 'inline';
  let decryptPool: RsaDecryptPool | null = null; // made at the first decryption: most servers never decrypt

  function requireKek(): Kek {
    if (!kek) throw missingKekError();
    return kek;
  }

  /** The key of `stored` decrypted and loaded, cached per stored ciphertext (least recently used goes first). */
  async function opened(stored: Record<string, unknown>): Promise<OpenedKey> {
    if (!stored || !('privateKey' in stored)) {
      throw new KeyBackendError('no-key', 'This CA has no private key in the default key backend.');
    }
    const envelope = parseEnvelope(stored.privateKey);
    const cacheKey = crypto
      .createHash('sha256')
      .update(envelope.kekId)
      .update('\0')
      .update(envelope.iv)
      .update('\0')
      .update(envelope.ciphertext)
      .digest('hex');
    const cached = keys.get(cacheKey);
    if (cached) {
      // Re-insert: Map iteration order then keeps the least recently used entry first.
      keys.delete(cacheKey);
      keys.set(cacheKey, cached);
      return cached;
    }
    const der = decryptKey(requireKek(), envelope);
    let entry: OpenedKey;
    try {
      const key = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      entry = { key, signer: keyObjectSigner(key, { threads }) };
    } catch {
      throw new KeyBackendError('corrupt', 'The decrypted CA private key could not be loaded.');
    } finally {
      der.fill(0);
    }
    keys.set(cacheKey, entry);
    if (keys.size > SIGNER_CACHE_SIZE) keys.delete(keys.keys().next().value as string);
    return entry;
  }

  function store(key: crypto.KeyObject): StoredKey {
    const der = exportPrivateKey(key, { format: 'der' });
    try {
      return { publicKeyDer: publicKeyDer(key), options: { privateKey: encryptKey(requireKek(), der) } };
    } finally {
      der.fill(0); // do not leave the plaintext key in a buffer waiting for the GC
    }
  }

  return {
    alias: DEFAULT_KEY_BACKEND_ALIAS,

    /** Without a KEK no stored key can be opened: a router built on this backend refuses to start. */
    configurationProblem: () => (kek ? null : missingKekError().message),

    /** `ca-admin rotate_kek`: this backend's KEK → `newKek` (kek-rotation.ts). */
    kekRotation: (newKek: string) => kekRotation(kek, newKek),

    async createKey(spec: KeySpec): Promise<StoredKey> {
      requireKek(); // before spending seconds on an RSA key that could not be stored
      return store(generatePrivateKey(spec));
    },

    async importKey(key: Buffer | string, password?: string): Promise<StoredKey> {
      requireKek();
      return store(importPrivateKey(key, password));
    },

    async getSigner(stored: Record<string, unknown>): Promise<Signer> {
      return (await opened(stored)).signer;
    },

    /** SCEP's RA key (lib/ports/keys.ts `KeyDecryption`): RSADP by OpenSSL, which blinds it; the caller unpads. */
    async getDecrypter(stored: Record<string, unknown>): Promise<RawRsaDecrypter> {
      const { key, signer } = await opened(stored);
      if (key.asymmetricKeyType !== 'rsa') throw new KeyBackendError('corrupt', 'Only an RSA key can decrypt.');
      return {
        publicKeyDer: signer.publicKeyDer,
        decryptRaw: async (block) => {
          if (inlineDecryption) return crypto.privateDecrypt({ key, padding: crypto.constants.RSA_NO_PADDING }, block);
          decryptPool ??= rsaDecryptPool();
          return decryptPool.decryptRaw(key, block);
        },
      };
    },
  };
}
