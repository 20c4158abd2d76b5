/**
 * The default key backend: keys created or imported are stored encrypted under the KEK and sign
 * correctly (openssl verifies); a missing, malformed or wrong KEK and tampered data are reported
 * clearly; passwords and key material never appear in errors or stored options.
 */
import { constants, createPublicKey, publicEncrypt, randomBytes } from 'crypto';
import { defaultKeyBackend, KeyBackendError, kekId } from '../../adapters/keys';
import type { KeyBackend, KeySpec, StoredKey } from '../../lib/ports';
import { loadCorpusEntry } from '../helpers/corpus';
import { opensslEncryptedPem, opensslPublicKeyDer, opensslVerifies } from './openssl';

const KEK = randomBytes(32).toString('base64');
const DATA = Buffer.from('tbsCertificate stand-in: the bytes a CA signs');

function keyOf(name: string): Buffer {
  const der = loadCorpusEntry(name).keyDer;
  if (!der) throw new Error(`corpus entry ${name} has no key`);
  return der;
}

async function rejection(promise: Promise<unknown>): Promise<KeyBackendError> {
  try {
    await promise;
  } catch (e) {
    return e as KeyBackendError;
  }
  throw new Error('expected a rejection');
}

const savedEnv = process.env.CA_KEY_ENCRYPTION_KEY;
afterEach(() => {
  if (savedEnv === undefined) delete process.env.CA_KEY_ENCRYPTION_KEY;
  else process.env.CA_KEY_ENCRYPTION_KEY = savedEnv;
});

describe('default key backend', () => {
  let backend: KeyBackend;
  beforeAll(() => {
    backend = defaultKeyBackend({ keyEncryptionKey: KEK });
  });

  it('is addressed as "default"', () => {
    expect(backend.alias).toBe('default');
  });

  const specs: [KeySpec, string | null][] = [
    [{ keyType: 'EC', curve: 'secp256r1' }, 'sha256'],
    [{ keyType: 'EC', curve: 'secp384r1' }, 'sha384'],
    [{ keyType: 'Ed25519' }, null],
    [{ keyType: 'Ed448' }, null],
    [{ keyType: 'RSA', keySize: 2048 }, 'sha256'],
  ];
  it.each(specs)('creates a %o key that signs verifiably', async (spec, hash) => {
    const stored = await backend.createKey(spec);
    const signer = await backend.getSigner(stored.options);
    expect(signer.publicKeyDer.equals(stored.publicKeyDer)).toBe(true);
    const signature = await signer.sign(DATA, { hash: hash === null ? null : (`SHA-${hash.slice(3)}` as 'SHA-256') });
    expect(opensslVerifies(stored.publicKeyDer, DATA, signature, hash)).toBe(true);
    expect(opensslVerifies(stored.publicKeyDer, Buffer.from('other data'), signature, hash)).toBe(false);
  });

  it.each(['root', 'ec', 'ed25519', 'ed448', 'dsa'])('imports the corpus key %s (DER)', async (name) => {
    const keyDer = keyOf(name);
    const stored = await backend.importKey(keyDer);
    expect(stored.publicKeyDer.equals(opensslPublicKeyDer(keyDer))).toBe(true);
    const signer = await backend.getSigner(stored.options);
    const hash = name.startsWith('ed') ? null : 'sha256';
    const signature = await signer.sign(DATA, { hash: hash ? 'SHA-256' : null });
    expect(opensslVerifies(stored.publicKeyDer, DATA, signature, hash)).toBe(true);
  });

  it('imports a password-protected key and re-encrypts it under the KEK', async () => {
    const keyDer = keyOf('ec');
    const password = 'correct horse battery staple';
    const pem = opensslEncryptedPem(keyDer, password);
    const stored = await backend.importKey(pem, password);
    expect(stored.publicKeyDer.equals(opensslPublicKeyDer(keyDer))).toBe(true);
    // The stored form needs the KEK, not the import password.
    expect(JSON.stringify(stored.options)).not.toContain(password);
    const signer = await defaultKeyBackend({ keyEncryptionKey: KEK }).getSigner(stored.options);
    expect(signer.publicKeyDer.equals(stored.publicKeyDer)).toBe(true);
  });

  it('imports the corpus encrypted PKCS#8 DER key with its password', async () => {
    const entry = loadCorpusEntry('pwd');
    const password = String(entry.facts.password);
    const stored = await backend.importKey(entry.keyDer!, password);
    expect(stored.publicKeyDer.equals(opensslPublicKeyDer(entry.keyDer!, password))).toBe(true);
  });

  it('refuses an encrypted key with a wrong or missing password without echoing it', async () => {
    const pem = opensslEncryptedPem(keyOf('ec'), 'right-password');
    const wrong = await rejection(backend.importKey(pem, 'wrong-password-xyz'));
    expect(wrong.message).not.toContain('wrong-password-xyz');
    expect(wrong.message).not.toContain('right-password');
    expect(wrong.message).toMatch(/password/i);
    const missing = await rejection(backend.importKey(pem));
    expect(missing.message).toMatch(/password is required/i);
  });

  it('keeps no trace of the clear key in the stored options', async () => {
    const keyDer = keyOf('root');
    const stored = await backend.importKey(keyDer);
    const text = JSON.stringify(stored.options);
    expect(text).not.toContain(keyDer.toString('base64').slice(0, 64));
    expect(text).not.toContain(keyDer.toString('hex').slice(0, 64));
    expect(stored.options).toMatchObject({
      privateKey: { version: 1, algorithm: 'aes-256-gcm', kekId: kekId(Buffer.from(KEK, 'base64')) },
    });
  });

  it('encrypts the same key differently each time (fresh IV)', async () => {
    const a = await backend.importKey(keyOf('ec'));
    const b = await backend.importKey(keyOf('ec'));
    expect(JSON.stringify(a.options)).not.toBe(JSON.stringify(b.options));
  });

  it('decrypts a key once and reuses the signer', async () => {
    const stored = await backend.createKey({ keyType: 'Ed25519' });
    const first = await backend.getSigner(stored.options);
    // A copy of the options, as a fresh database read would produce.
    const second = await backend.getSigner(JSON.parse(JSON.stringify(stored.options)));
    expect(second).toBe(first);
    const other = await backend.getSigner((await backend.createKey({ keyType: 'Ed25519' })).options);
    expect(other).not.toBe(first);
  });

  it('ignores per-request options', async () => {
    const stored = await backend.createKey({ keyType: 'Ed25519' });
    const signer = await backend.getSigner(stored.options, { password: 'unused' });
    expect(signer.publicKeyDer.equals(stored.publicKeyDer)).toBe(true);
  });
});

describe('getDecrypter: raw RSA for the SCEP RA key, on a worker thread by default', () => {
  const worker = defaultKeyBackend({ keyEncryptionKey: KEK });
  const inline = defaultKeyBackend({ keyEncryptionKey: KEK, decryptionThreads: 'inline' });
  let stored: StoredKey;
  beforeAll(async () => {
    stored = await worker.createKey({ keyType: 'RSA', keySize: 2048 });
  });
  const encrypt = (text: string) =>
    publicEncrypt(
      { key: createPublicKey({ key: stored.publicKeyDer, format: 'der', type: 'spki' }), padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(text),
    );

  it('gives the RSADP block (RFC 8017 §7.2.2: 00 02 ‖ padding ‖ 00 ‖ message) on a thread, as inline does', async () => {
    const ciphertext = encrypt('content-encryption key');
    const before = process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    const pending = (await worker.getDecrypter(stored.options)).decryptRaw(ciphertext);
    // A message to the decrypting thread is under way: the event loop did not do the RSA operation.
    expect(process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length).toBeGreaterThan(before);
    const block = await pending;
    expect(block.length).toBe(256);
    expect([...block.subarray(0, 2)]).toEqual([0, 2]);
    expect(block.subarray(-23).toString()).toBe('\0content-encryption key');
    expect((await (await inline.getDecrypter(stored.options)).decryptRaw(ciphertext)).equals(block)).toBe(true);
  });

  it('many at once each get their own block', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `key ${i}`);
    const decrypter = await worker.getDecrypter(stored.options);
    const blocks = await Promise.all(texts.map((t) => decrypter.decryptRaw(encrypt(t))));
    expect(blocks.map((b) => b.subarray(b.lastIndexOf(0) + 1).toString())).toEqual(texts);
  });

  it('refuses a block that is no ciphertext for the key (not below the modulus), as inline does, with nothing of it in the error', async () => {
    const block = Buffer.alloc(256, 0xff);
    for (const backend of [worker, inline]) {
      const error = await rejection((await backend.getDecrypter(stored.options)).decryptRaw(block));
      expect(error.message.length).toBeGreaterThan(0);
      expect(error.message).not.toMatch(/ffff/i);
    }
    // The thread survived: the next decryption works.
    const after = await (await worker.getDecrypter(stored.options)).decryptRaw(encrypt('still here'));
    expect(after.subarray(-10).toString()).toBe('still here');
  });
});

describe('key-encryption key handling', () => {
  let stored: StoredKey;
  beforeAll(async () => {
    stored = await defaultKeyBackend({ keyEncryptionKey: KEK }).importKey(keyOf('ec'));
  });

  it('reads CA_KEY_ENCRYPTION_KEY when no option is given', async () => {
    process.env.CA_KEY_ENCRYPTION_KEY = KEK;
    const signer = await defaultKeyBackend().getSigner(stored.options);
    expect(signer.publicKeyDer.equals(stored.publicKeyDer)).toBe(true);
  });

  it('accepts the KEK as 32 raw bytes', async () => {
    const signer = await defaultKeyBackend({ keyEncryptionKey: Buffer.from(KEK, 'base64') }).getSigner(stored.options);
    expect(signer.publicKeyDer.equals(stored.publicKeyDer)).toBe(true);
  });

  it('without a KEK, refuses to create or import keys and says how to set one', async () => {
    delete process.env.CA_KEY_ENCRYPTION_KEY;
    const backend = defaultKeyBackend();
    for (const attempt of [backend.createKey({ keyType: 'Ed25519' }), backend.importKey(keyOf('ec')), backend.getSigner(stored.options)]) {
      const error = await rejection(attempt);
      expect(error).toBeInstanceOf(KeyBackendError);
      expect(error.code).toBe('no-kek');
      expect(error.message).toContain('CA_KEY_ENCRYPTION_KEY');
      expect(error.message).toContain('openssl rand -base64 32');
    }
  });

  it('detects a wrong KEK and says so', async () => {
    const other = defaultKeyBackend({ keyEncryptionKey: randomBytes(32).toString('base64') });
    const error = await rejection(other.getSigner(stored.options));
    expect(error).toBeInstanceOf(KeyBackendError);
    expect(error.code).toBe('wrong-kek');
    expect(error.message).toMatch(/the key-encryption key does not match the one this CA's key was encrypted with/i);
  });

  it.each([
    ['too short', randomBytes(16).toString('base64')],
    ['too long', randomBytes(48).toString('base64')],
    ['not base64', 'this is not base64!'],
  ])('rejects a malformed KEK (%s) at construction', (_label, value) => {
    let error: unknown;
    try {
      defaultKeyBackend({ keyEncryptionKey: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KeyBackendError);
    expect((error as KeyBackendError).code).toBe('bad-kek');
    expect((error as KeyBackendError).message).toContain('openssl rand -base64 32');
  });

  it('detects tampered ciphertext, tag or IV', async () => {
    const backend = defaultKeyBackend({ keyEncryptionKey: KEK });
    const envelope = stored.options.privateKey as Record<string, string>;
    for (const field of ['ciphertext', 'tag', 'iv']) {
      const bytes = Buffer.from(envelope[field], 'base64');
      bytes[0] ^= 1;
      const tampered = { privateKey: { ...envelope, [field]: bytes.toString('base64') } };
      const error = await rejection(backend.getSigner(tampered));
      expect(error).toBeInstanceOf(KeyBackendError);
      expect(error.code).toBe('corrupt');
    }
  });

  it('reports a CA without a stored key or with an unknown format', async () => {
    const backend = defaultKeyBackend({ keyEncryptionKey: KEK });
    expect((await rejection(backend.getSigner({}))).code).toBe('no-key');
    const future = { privateKey: { ...(stored.options.privateKey as object), version: 2 } };
    expect((await rejection(backend.getSigner(future))).code).toBe('corrupt');
  });
});
