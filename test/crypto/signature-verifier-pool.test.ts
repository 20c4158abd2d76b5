/**
 * signatureVerifierPool (the default SignatureVerifier): the same verdicts as lib/x509's
 * verifySignature on this thread (the oracle) for every key type and padding, wrong signatures and
 * keys that do not fit; the same X509Error for a key that cannot be loaded; the work done on a
 * worker thread; a closed pool refuses.
 */
import * as crypto from 'crypto';
import { threadId } from 'worker_threads';
import { signatureVerifierPool } from '../../adapters/crypto/verify-pool';
import { signatureAlgorithmFor, verifySignature, type SignatureAlgorithm } from '../../lib/x509/algorithms';
import { X509Error } from '../../lib/x509/errors';

type Case = { label: string; key: crypto.KeyPairKeyObjectResult; alg: SignatureAlgorithm; sign: (data: Buffer) => Buffer };

function cases(): Case[] {
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const p256 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const p384 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const ed25519 = crypto.generateKeyPairSync('ed25519');
  const ed448 = crypto.generateKeyPairSync('ed448');
  const pss = signatureAlgorithmFor('RSA', { hash: 'SHA-256', padding: 'pss' });
  return [
    {
      label: 'RSA PKCS#1 v1.5',
      key: rsa,
      alg: signatureAlgorithmFor('RSA', { hash: 'SHA-256' }),
      sign: (d) => crypto.sign('sha256', d, rsa.privateKey),
    },
    {
      label: 'RSA-PSS',
      key: rsa,
      alg: pss,
      sign: (d) => crypto.sign('sha256', d, { key: rsa.privateKey, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }),
    },
    {
      label: 'ECDSA P-256',
      key: p256,
      alg: signatureAlgorithmFor('EC', { hash: 'SHA-256' }),
      sign: (d) => crypto.sign('sha256', d, p256.privateKey),
    },
    {
      label: 'ECDSA P-384',
      key: p384,
      alg: signatureAlgorithmFor('EC', { hash: 'SHA-384' }),
      sign: (d) => crypto.sign('sha384', d, p384.privateKey),
    },
    {
      label: 'Ed25519',
      key: ed25519,
      alg: signatureAlgorithmFor('Ed25519', { hash: null }),
      sign: (d) => crypto.sign(null, d, ed25519.privateKey),
    },
    {
      label: 'Ed448',
      key: ed448,
      alg: signatureAlgorithmFor('Ed448', { hash: null }),
      sign: (d) => crypto.sign(null, d, ed448.privateKey),
    },
  ];
}

const spki = (k: crypto.KeyPairKeyObjectResult) => k.publicKey.export({ format: 'der', type: 'spki' });

describe('signatureVerifierPool', () => {
  const pool = signatureVerifierPool({ size: 1 });
  const all = cases();
  afterAll(() => pool.close());

  test.each(all.map((c) => [c.label, c] as const))('%s: the verdicts of verifySignature', async (_label, c) => {
    const data = crypto.randomBytes(300);
    const good = c.sign(data);
    const bad = Buffer.from(good);
    bad[bad.length - 1] ^= 1;
    const other = Buffer.from(data);
    other[0] ^= 1;
    for (const [d, s] of [
      [data, good],
      [data, bad],
      [other, good],
      [data, Buffer.from('not a signature')],
    ] as const) {
      expect(await pool.verify(c.alg, spki(c.key), d, s)).toBe(verifySignature(c.alg, spki(c.key), d, s));
    }
    expect(await pool.verify(c.alg, spki(c.key), data, good)).toBe(true);
  });

  test('a key that does not fit the algorithm does not verify', async () => {
    const [rsa, , p256] = all;
    const data = Buffer.from('x');
    expect(await pool.verify(p256.alg, spki(rsa.key), data, rsa.sign(data))).toBe(false);
    expect(verifySignature(p256.alg, spki(rsa.key), data, rsa.sign(data))).toBe(false);
  });

  test('a key that cannot be loaded: X509Error(key), as on this thread', async () => {
    const [, , p256] = all;
    const garbage = Buffer.from('30050603000000', 'hex');
    expect(() => verifySignature(p256.alg, garbage, Buffer.from('x'), Buffer.from('y'))).toThrow(X509Error);
    await expect(pool.verify(p256.alg, garbage, Buffer.from('x'), Buffer.from('y'))).rejects.toMatchObject({ code: 'key' });
  });

  test('runs on a worker thread', async () => {
    const [, , p256] = all;
    const data = Buffer.from('on another thread');
    await pool.verify(p256.alg, spki(p256.key), data, p256.sign(data));
    const threads = Object.keys(pool.tasksByThread()).map(Number);
    expect(threads.length).toBe(1);
    expect(threads).not.toContain(threadId);
  });

  test('a closed pool refuses', async () => {
    const closed = signatureVerifierPool({ size: 1 });
    await closed.close();
    const [, , p256] = all;
    await expect(closed.verify(p256.alg, spki(p256.key), Buffer.from('x'), Buffer.from('y'))).rejects.toThrow(/closed/);
  });
});
