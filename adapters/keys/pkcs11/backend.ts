/**
 * The PKCS#11 key backend (docs/operations/hsm.md): CA keys generated in (or imported into) a token,
 * sensitive and not extractable, used there for every signature the CA makes.
 *
 * Stored options (the CA row's `key_backend_options`, as the original's HSM backend keeps them):
 * `{ "key_id": <hex CKA_ID>, "key_label": <CKA_LABEL>, "key_type": "RSA" | "EC" | "Ed25519" | "Ed448" }`
 * — a reference, never key material. The PIN is configured on the backend, never stored, never per use
 * (no `storableUseOptions`: nothing of a request's key options is written with an order).
 *
 * Key options of `createKey`: `keyLabel` (CKA_LABEL; default `express-ca-<id>`) and `decrypt: true` for
 * an RSA key that also decrypts (a SCEP RA's, lib/scep/ra.ts), which `getDecrypter` (KeyDecryption)
 * then opens: raw RSA in the token (decryption.ts).
 */
import * as crypto from 'crypto';
import {
  KeyBackendUnavailableError,
  type KeyBackend,
  type KeyDecryption,
  type KeySpec,
  type RawRsaDecrypter,
  type StoredKey,
} from '../../../lib/ports';
import { importPrivateKey } from '../../../lib/x509/keys';
import type { SignatureOptions, Signer } from '../../../lib/x509/signer';
import type { KeyType } from '../../../lib/x509/types';
import { KeyBackendError } from '../errors';
import type { Handle } from './binding';
import { isRefusedBlock, isRsaCiphertext, rawRsa, REFUSED_BLOCK } from './decryption';
import { ckr, ckrText, isUnsupportedCode } from './errors';
import { importObjects } from './import';
import { curveOfParams, readPublicKeyDer } from './public-key';
import { TokenSessions } from './sessions';
import { prepareSignature } from './signing';
import { generation, type KeyRef } from './templates';

export const PKCS11_KEY_BACKEND_ALIAS = 'hsm';

export interface Pkcs11KeyBackendOptions {
  /** Path of the token's PKCS#11 library, e.g. `/usr/lib/softhsm/libsofthsm2.so` (CA_HSM_LIBRARY_PATH). */
  library: string;
  /** The token's label (CA_HSM_TOKEN). */
  token: string;
  /** The user PIN (CA_HSM_USER_PIN). Kept in memory only: never logged, stored or put into an error. */
  pin: string;
  /** The alias CA rows refer to; default `hsm`. */
  alias?: string;
  /** Sessions open at most: signatures in flight at once. Default 4. */
  sessions?: number;
}

export interface Pkcs11KeyBackend extends KeyBackend {
  /** Log out and close the sessions (the library is finalized when its last backend closes). */
  close(): void;
}

type Stored = { id: Buffer; label: string; keyType: KeyType };

function storedRef(alias: string, options: Record<string, unknown>): Stored {
  const { key_id: id, key_label: label, key_type: keyType } = options ?? {};
  if (typeof id !== 'string' || typeof label !== 'string' || typeof keyType !== 'string') {
    throw new KeyBackendError('no-key', `This CA has no private key in the key backend ${alias}.`);
  }
  return { id: Buffer.from(id, 'hex'), label, keyType: keyType as KeyType };
}

export function pkcs11KeyBackend(options: Pkcs11KeyBackendOptions): Pkcs11KeyBackend {
  const alias = options.alias ?? PKCS11_KEY_BACKEND_ALIAS;
  const tokens = new TokenSessions({
    library: options.library,
    token: options.token,
    pin: options.pin,
    alias,
    sessions: options.sessions ?? 4,
  });
  const { binding: b, module: m } = tokens;
  /** Private key handles by CKA_ID, valid for one generation of the token's sessions (sessions.ts). */
  const handles = new Map<string, { generation: number; handle: Handle }>();
  const signers = new Map<string, Promise<Signer>>();

  const where = `${alias}: token ${JSON.stringify(options.token)}`;

  /** A failure of the token as the operator should read it. */
  function failure(e: unknown, doing: string): Error {
    if (e instanceof KeyBackendError || e instanceof KeyBackendUnavailableError) return e;
    const code = ckr(e);
    if (code === null) return new KeyBackendError('unsupported', `${where}: ${doing}: ${(e as Error).message}`);
    if (isUnsupportedCode(b, code))
      return new KeyBackendError('unsupported', `${where}: the token does not support ${doing} (${ckrText(e)})`);
    return new KeyBackendError('unsupported', `${where}: ${doing} failed (${ckrText(e)})`);
  }

  function findObject(session: Handle, objectClass: number, ref: KeyRef): Handle | null {
    m.C_FindObjectsInit(session, [
      { type: b.CKA_CLASS, value: objectClass },
      { type: b.CKA_ID, value: ref.id },
      { type: b.CKA_LABEL, value: ref.label },
    ]);
    try {
      return m.C_FindObjects(session);
    } finally {
      m.C_FindObjectsFinal(session);
    }
  }

  function missing(ref: KeyRef): KeyBackendError {
    return new KeyBackendError('no-key', `${where}: no key labelled ${JSON.stringify(ref.label)} with id ${ref.id.toString('hex')}.`);
  }

  function publicKeyOf(session: Handle, handle: Handle, keyType: KeyType): Buffer {
    const curve =
      keyType === 'EC' ? curveOfParams(m.C_GetAttributeValue(session, handle, [{ type: b.CKA_EC_PARAMS }])[0].value as Buffer) : null;
    if (keyType === 'EC' && !curve) throw new KeyBackendError('unsupported', `${where}: the key is on a curve this CA does not offer.`);
    return readPublicKeyDer(b, m, session, handle, keyType, curve ?? undefined);
  }

  function privateHandle(session: Handle, gen: number, ref: Stored): Handle {
    const key = ref.id.toString('hex');
    const cached = handles.get(key);
    if (cached && cached.generation === gen) return cached.handle;
    const found = findObject(session, b.CKO_PRIVATE_KEY, ref);
    if (!found) throw missing(ref);
    handles.set(key, { generation: gen, handle: found });
    return found;
  }

  async function sign(ref: Stored, data: Buffer, signOptions: SignatureOptions): Promise<Buffer> {
    let prepared;
    try {
      prepared = prepareSignature(b, ref.keyType, data, signOptions);
    } catch (e) {
      throw new KeyBackendError('unsupported', `${alias}: ${(e as Error).message}`);
    }
    let raw: Buffer;
    try {
      raw = await tokens.use(async (session, gen) => {
        m.C_SignInit(session, prepared.mechanism, privateHandle(session, gen, ref));
        // On libuv's thread pool: a slow token does not stop the event loop, and the pool's sessions sign in parallel.
        return m.C_SignAsync(session, prepared.input, Buffer.alloc(prepared.outputLength));
      });
    } catch (e) {
      throw failure(e, `signing with ${ref.keyType} keys`);
    }
    return prepared.finish(raw);
  }

  async function loadSigner(ref: Stored): Promise<Signer> {
    const publicKeyDer = await tokens.use(async (session, gen) => {
      privateHandle(session, gen, ref); // the private key must be there, not only its public half
      const publicKey = findObject(session, b.CKO_PUBLIC_KEY, ref);
      if (!publicKey) throw missing(ref);
      return publicKeyOf(session, publicKey, ref.keyType);
    });
    return { keyType: ref.keyType, publicKeyDer, sign: (data, signOptions) => sign(ref, data, signOptions) };
  }

  /** Raw RSA with the private key of `ref` (decryption.ts); `n`: its modulus, big-endian, k octets. */
  async function decryptRaw(ref: Stored, block: Buffer, n: Buffer): Promise<Buffer> {
    if (!isRsaCiphertext(block, n)) throw new Error(REFUSED_BLOCK);
    const k = n.length;
    try {
      return await tokens.use(async (session, gen) => {
        m.C_DecryptInit(session, rawRsa(b), privateHandle(session, gen, ref));
        // On libuv's thread pool, as signatures are.
        return m.C_DecryptAsync(session, block, Buffer.alloc(k));
      });
    } catch (e) {
      // Without the cause on purpose: a refused block reads as every other one (decryption.ts).
      // eslint-disable-next-line preserve-caught-error
      if (isRefusedBlock(b, ckr(e))) throw new Error(REFUSED_BLOCK);
      throw failure(e, 'decrypting with RSA keys (CKM_RSA_X_509)');
    }
  }

  function newRef(keyOptions: Record<string, unknown> | undefined): KeyRef {
    const id = crypto.randomBytes(16);
    const label = keyOptions?.keyLabel ?? `express-ca-${id.toString('hex')}`;
    if (typeof label !== 'string' || label === '')
      throw new KeyBackendError('unsupported', `${alias}: keyLabel must be a non-empty string.`);
    return { id, label };
  }

  const storedKey = (ref: KeyRef, keyType: KeyType, publicKeyDer: Buffer): StoredKey => ({
    publicKeyDer,
    options: { key_id: ref.id.toString('hex'), key_label: ref.label, key_type: keyType },
  });

  const backend: Pkcs11KeyBackend & KeyDecryption = {
    alias,

    async createKey(spec: KeySpec, keyOptions?: Record<string, unknown>): Promise<StoredKey> {
      const ref = newRef(keyOptions);
      const decrypt = keyOptions?.decrypt === true;
      const what =
        spec.keyType === 'EC'
          ? `EC keys on ${spec.curve}`
          : 'keySize' in spec
            ? `${spec.keyType}-${spec.keySize} keys`
            : `${spec.keyType} keys`;
      try {
        if (decrypt && spec.keyType !== 'RSA') throw new KeyBackendError('unsupported', `${where}: only RSA keys decrypt.`);
        // Asked first, as below: a key that could not decrypt here is not worth making.
        if (decrypt && !tokens.mechanism(b.CKM_RSA_X_509)) {
          throw new KeyBackendError('unsupported', `${where}: the token does not support raw RSA decryption (CKM_RSA_X_509).`);
        }
        const { mechanism, publicTemplate, privateTemplate } = generation(b, spec, ref, decrypt);
        // Asked first: tokens answer an unsupported size with anything up to CKR_GENERAL_ERROR.
        const limits = tokens.mechanism(mechanism.mechanism);
        if (!limits) throw new KeyBackendError('unsupported', `${where}: the token does not support generating ${what}.`);
        if (spec.keyType === 'RSA' && (spec.keySize < limits.minKeySize || spec.keySize > limits.maxKeySize)) {
          throw new KeyBackendError(
            'unsupported',
            `${where}: the token does not support generating ${what} (RSA keys of ${limits.minKeySize} to ${limits.maxKeySize} bits).`,
          );
        }
        return await tokens.use(async (session) => {
          const pair = await m.C_GenerateKeyPairAsync(session, mechanism, publicTemplate, privateTemplate);
          return storedKey(ref, spec.keyType, publicKeyOf(session, pair.publicKey, spec.keyType));
        });
      } catch (e) {
        throw failure(e, `generating ${what}`);
      }
    },

    async importKey(key: Buffer | string, password?: string, keyOptions?: Record<string, unknown>): Promise<StoredKey> {
      const ref = newRef(keyOptions);
      const parsed = importPrivateKey(key, password);
      const objects = (() => {
        try {
          return importObjects(b, parsed, ref);
        } catch (e) {
          throw failure(e, 'importing this key');
        }
      })();
      try {
        return await tokens.use(async (session) => {
          const privateKey = m.C_CreateObject(session, objects.privateTemplate);
          try {
            const publicKey = m.C_CreateObject(session, objects.publicTemplate);
            return storedKey(ref, objects.keyType, publicKeyOf(session, publicKey, objects.keyType));
          } catch (e) {
            m.C_DestroyObject(session, privateKey);
            throw e;
          }
        });
      } catch (e) {
        const code = ckr(e);
        if (code !== null && (isUnsupportedCode(b, code) || code === 0x1b) /* CKR_ACTION_PROHIBITED, v2.40 */) {
          throw new KeyBackendError('unsupported', `${where}: the token does not allow importing ${objects.keyType} keys (${ckrText(e)}).`);
        }
        throw failure(e, 'importing the key');
      } finally {
        objects.wipe();
      }
    },

    getSigner(stored: Record<string, unknown>): Promise<Signer> {
      const ref = storedRef(alias, stored);
      const key = `${ref.id.toString('hex')}/${ref.label}/${ref.keyType}`;
      let signer = signers.get(key);
      if (!signer) {
        signer = loadSigner(ref);
        signers.set(key, signer);
        signer.catch(() => signers.delete(key)); // a missing token now may be back later
      }
      return signer;
    },

    async getDecrypter(stored: Record<string, unknown>): Promise<RawRsaDecrypter> {
      const ref = storedRef(alias, stored);
      if (ref.keyType !== 'RSA') throw new KeyBackendError('unsupported', `${where}: only RSA keys decrypt.`);
      const { publicKeyDer } = await backend.getSigner(stored);
      const { n } = crypto.createPublicKey({ key: publicKeyDer, format: 'der', type: 'spki' }).export({ format: 'jwk' });
      const modulus = Buffer.from(n ?? '', 'base64url');
      return { publicKeyDer, decryptRaw: (block) => decryptRaw(ref, block, modulus) };
    },

    close: () => tokens.close(),
  };
  return backend;
}
