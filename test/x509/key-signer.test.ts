/**
 * keyObjectSigner (lib/x509/key-signer.ts) computes the same signatures wherever it runs them:
 * inline, on libuv's thread pool, or `auto` (pool for RSA and DSA). Errors reject in every mode, and
 * pooled signatures run in parallel, so the event loop is free while they are computed.
 */
import * as crypto from 'crypto';
import { keyObjectSigner, type KeyObjectSignerOptions } from '../../lib/x509/key-signer';

const MODES: NonNullable<KeyObjectSignerOptions['threads']>[] = ['inline', 'thread-pool', 'auto'];
const data = Buffer.from('tbsCertificate stand-in');

const KEYS = {
  RSA: crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }),
  EC: crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  Ed25519: crypto.generateKeyPairSync('ed25519'),
  DSA: crypto.generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 }),
};

describe.each(MODES)('threads: %s', (threads) => {
  test.each(Object.keys(KEYS) as (keyof typeof KEYS)[])('%s signatures verify with the public key', async (type) => {
    const { privateKey, publicKey } = KEYS[type];
    const signer = keyObjectSigner(privateKey, { threads });
    const hash = type === 'Ed25519' ? null : 'SHA-256';
    const signature = await signer.sign(data, { hash });
    expect(crypto.verify(hash ? 'sha256' : null, data, publicKey, signature)).toBe(true);
    if (type === 'RSA') {
      const pss = await signer.sign(data, { hash: 'SHA-256', padding: 'pss' });
      expect(crypto.verify('sha256', data, { key: publicKey, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, pss)).toBe(
        true,
      );
    }
  });

  test('a hash an Ed25519 key cannot use rejects', async () => {
    const signer = keyObjectSigner(KEYS.Ed25519.privateKey, { threads });
    await expect(signer.sign(data, { hash: 'SHA-256' })).rejects.toMatchObject({ code: 'unsupported' });
  });
});

test('pooled RSA signatures leave the event loop free while they are computed', async () => {
  const signer = keyObjectSigner(KEYS.RSA.privateKey, { threads: 'auto' });
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 0);
  // Inline, all 40 signatures would be computed before the interval could fire once.
  await Promise.all(Array.from({ length: 40 }, () => signer.sign(data, { hash: 'SHA-256' })));
  clearInterval(ticker);
  expect(ticks).toBeGreaterThan(0);
  const inline = keyObjectSigner(KEYS.RSA.privateKey, { threads: 'inline' });
  let inlineTicks = 0;
  const t2 = setInterval(() => inlineTicks++, 0);
  await Promise.all(Array.from({ length: 40 }, () => inline.sign(data, { hash: 'SHA-256' })));
  clearInterval(t2);
  expect(inlineTicks).toBe(0); // the contrast: inline, the loop waited for all of them
});
