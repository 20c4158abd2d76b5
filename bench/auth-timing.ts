/**
 * Does a failed login tell an attacker whether the username exists? (docs/reference/differences.md D6; issue: timing of
 * rejections.) Through HTTP against the router on PGlite in memory, one client, sequential requests:
 * 200 attempts with an unknown username and 200 with a known username and a wrong password,
 * interleaved so that drift of the machine affects both alike, each with a fresh password (nothing
 * cached). Prints the median time to reject each and their ratio (target: within 10 %), and the same
 * for requests with the right password, for scale. The brute-force limit is off here: it would answer
 * the later attempts 429 before any password is checked — equally fast for both, which hides nothing.
 *
 *   npm run bench:auth-timing          (ATTEMPTS=200 by default)
 */
import { randomBytes } from 'crypto';
import express from 'express';
import { createApiUser, createCaApiRouter, defaultKeyBackend, knexStore, openDatabase } from '../lib';
import { serve } from './serve';

const ATTEMPTS = Number(process.env.ATTEMPTS ?? 200);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function main(): Promise<void> {
  const db = await openDatabase('memory://');
  const store = knexStore(db);
  await store.migrate();
  await createApiUser(store, 'operator', 'the right password');
  const router = createCaApiRouter({
    enableRestApi: true,
    store,
    keyBackends: { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) },
    loginLimiter: false,
  });
  const app = express();
  app.use(router);
  const server = await serve(app);
  const url = `${server.url}/django_ca/api/profiles/`;

  const time = async (authorization: string, expected: number): Promise<number> => {
    const t0 = process.hrtime.bigint();
    const res = await fetch(url, { headers: { Authorization: authorization } });
    await res.arrayBuffer();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== expected) throw new Error(`expected ${expected}, got ${res.status}`);
    return ms;
  };

  // Warm up: the bcrypt threads, the user cache, the JIT.
  for (let i = 0; i < 10; i++) {
    await time(basic(`nobody${i}`, 'x'), 401);
    await time(basic('operator', `wrong${i}`), 401);
  }
  const unknown: number[] = [];
  const wrong: number[] = [];
  const right: number[] = [];
  for (let i = 0; i < ATTEMPTS; i++) {
    const password = randomBytes(9).toString('base64');
    unknown.push(await time(basic(`user-${randomBytes(6).toString('hex')}`, password), 401));
    wrong.push(await time(basic('operator', password), 401));
    right.push(await time(basic('operator', 'the right password'), 200));
  }
  const mu = median(unknown);
  const mw = median(wrong);
  console.log(`rejecting an unknown user:                median ${mu.toFixed(2)} ms (${ATTEMPTS} attempts)`);
  console.log(`rejecting a known user, wrong password:   median ${mw.toFixed(2)} ms (${ATTEMPTS} attempts)`);
  console.log(`accepting the right password (cached):    median ${median(right).toFixed(2)} ms`);
  const ratio = mw / mu;
  console.log(
    `auth-timing: wrong-password / unknown-user = ${ratio.toFixed(3)} (${Math.abs(ratio - 1) <= 0.1 ? 'within' : 'NOT within'} 10 %)`,
  );

  await server.close();
  await router.close();
  await db.destroy();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
