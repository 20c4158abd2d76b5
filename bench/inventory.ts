/**
 * Inventory benchmark (docs/DESIGN.md "Inventory"): PostgreSQL in a scratch schema when DATABASE_URL
 * or TEST_DATABASE_URL is a postgres:// URL, PGlite in memory otherwise. Localhost only, bounded
 * loops. Fills a CA with 200,000 certificates (copies of a few hundred really signed ones, each with
 * its own serial, common name, SANs and expiry) and prints, in one run:
 *
 *  1. the unpaged list (streamed): time to first byte, total time, bytes, and the server's peak RSS
 *     growth during it (the body is read by the load client, in its own process); once with the
 *     database's buffer cache cold (with PGlite it is in this process) and once more;
 *  2. list requests/s on a CA with 1k certificates, and a bare Express route answering the same bytes,
 *     with the same client (bench/load-client.ts) — the ratio is the list's cost;
 *  3. search latency at 200k: `subject` (a selective substring) and `not_after_before` (what expires
 *     within a week, first page of 100), median of 15;
 *  4. start-up time at 200k: a new store and router on the filled database, up to the first answer;
 *  5. one line: `inventory: 200000 certificates streamed in N s, peak RSS growth M MiB`.
 *
 *   npm run bench:inventory
 */
import { randomBytes } from 'crypto';
import express from 'express';
import type { Knex } from 'knex';
import { createApiUser, createCaApiRouter, defaultKeyBackend, initCa, knexStore, openDatabase } from '../lib';
import type { CaRecord } from '../lib/ports';
import { cloneCertificates, signCertificates } from './clone-certificates';
import { peakRssGrowthDuring } from './peak-rss';
import { serve } from './serve';
import { RemoteLoader } from './load-client';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';

const TOTAL = Number(process.env.INVENTORY_CERTIFICATES ?? 200_000);
const REAL = 200;
const SMALL = 1_000;
const AUTH = 'bench:bench-password';
const loader = new RemoteLoader();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const MiB = 1024 * 1024;

/**
 * GET `url` from the load client's process (so that its reading costs this process nothing): TTFB,
 * total, bytes, and this process's peak RSS growth meanwhile — the server's, as nothing else runs here.
 */
async function streamOnce(url: string): Promise<{ ttfb: number; total: number; bytes: number; peakRss: number }> {
  const { result: r, peakRss } = await peakRssGrowthDuring(() => loader.stream({ kind: 'stream', url, auth: AUTH }));
  return { ttfb: r.ttfbMs, total: r.totalMs, bytes: r.bytes, peakRss };
}

async function timedGet(url: string): Promise<{ ms: number; count: number }> {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, { headers: { Authorization: `Basic ${Buffer.from(AUTH).toString('base64')}` } });
  const body = (await res.json()) as unknown[];
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  return { ms: ms(t0), count: body.length };
}

async function run(label: string, databaseUrl: string, reopen: (open: Knex) => Promise<Knex>): Promise<void> {
  console.log(`\n== ${label} ==`);
  const db = await openDatabase(databaseUrl);
  const store = knexStore(db);
  await store.migrate();
  const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) };
  const base = { store, keyBackends, keyType: 'EC' as const, apiEnabled: true, expiresDays: 730 };
  const big = await initCa({ ...base, name: 'big', subject: [{ oid: 'CN', value: 'Big CA' }] });
  const small = await initCa({ ...base, name: 'small', subject: [{ oid: 'CN', value: 'Small CA' }] });
  await createApiUser(store, 'bench', 'bench-password', { viewCertificate: true, viewCertificateAuthority: true }, { bcryptCost: 4 });

  const t0 = process.hrtime.bigint();
  await signCertificates(store, keyBackends, big, REAL);
  await signCertificates(store, keyBackends, small, 20);
  await cloneCertificates(db, big.id, TOTAL - REAL, 'B', 'host');
  await cloneCertificates(db, small.id, SMALL - 20, 'C', 'small');
  await db.raw('analyze ca_api_certificates');
  console.log(`set-up: ${TOTAL + SMALL} certificates (${REAL + 20} signed, the rest copies) in ${(ms(t0) / 1000).toFixed(1)} s`);

  const app = express();
  const router = createCaApiRouter({ enableRestApi: true, store, keyBackends, env: {} });
  app.use(router);
  let bareBody = Buffer.alloc(0);
  app.get('/bare', (_req, res) => {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(bareBody);
  });
  const server = await serve(app);
  const certs = (ca: CaRecord, query = '') => `${server.url}/django_ca/api/ca/${ca.serial}/certs/${query}`;
  try {
    // 1. the unpaged list of 200k, twice: the first read of the rows fills the database's buffer
    //    cache, which with embedded PGlite lives in this process (WebAssembly memory, grown once and
    //    kept); the second shows what a list costs the server. Both are printed.
    await timedGet(certs(small)); // warm-up
    const report = (label: string, r: Awaited<ReturnType<typeof streamOnce>>) =>
      console.log(
        `${label} of ${TOTAL}: first byte ${r.ttfb.toFixed(0)} ms, total ${(r.total / 1000).toFixed(2)} s, ` +
          `${(r.bytes / MiB).toFixed(0)} MiB, peak RSS growth ${(r.peakRss / MiB).toFixed(1)} MiB`,
      );
    global.gc?.();
    report('unpaged list, first (cold database cache)', await streamOnce(certs(big)));
    global.gc?.();
    const whole = await streamOnce(certs(big));
    report('unpaged list', whole);

    // 2. requests/s at 1k, against a bare route with the same bytes
    bareBody = Buffer.from(
      await (await fetch(certs(small), { headers: { Authorization: `Basic ${Buffer.from(AUTH).toString('base64')}` } })).arrayBuffer(),
    );
    const job = (url: string, total: number) => ({ kind: 'get' as const, url, auth: AUTH, total, clients: 8 });
    await loader.run(job(certs(small), 50));
    await loader.run(job(`${server.url}/bare`, 50));
    const listRps = await loader.run(job(certs(small), 400));
    const bareRps = await loader.run(job(`${server.url}/bare`, 400));
    console.log(
      `list of ${SMALL} (${(bareBody.length / 1024).toFixed(0)} KiB): ${listRps.toFixed(0)} req/s, bare route ${bareRps.toFixed(0)} req/s, ratio ${(listRps / bareRps).toFixed(2)}`,
    );

    // 3. search at 200k
    const week = encodeURIComponent(new Date(Date.now() + 7 * 86_400_000).toISOString());
    for (const [name, query] of [
      ['subject=host12345.', `?subject=host12345.`],
      ['subject=real1', `?subject=real1`],
      ['san=host777.example', `?san=host777.example`],
      ['not_after_before=+7 days, limit=100', `?not_after_before=${week}&limit=100`],
      ['serial=B00001A', `?serial=B00001A`],
    ] as const) {
      const times: number[] = [];
      let count = 0;
      for (let i = 0; i < 15; i++) {
        const r = await timedGet(certs(big, query));
        times.push(r.ms);
        count = r.count;
      }
      console.log(`search ${name} at ${TOTAL}: ${median(times).toFixed(1)} ms (median of 15, ${count} rows)`);
    }

    // 4. start-up at 200k: a new connection (PostgreSQL), store, migrate (nothing to do), router, first answer
    const s0 = process.hrtime.bigint();
    const db2 = await reopen(db);
    const store2 = knexStore(db2);
    await store2.migrate();
    const app2 = express();
    const router2 = createCaApiRouter({ enableRestApi: true, store: store2, keyBackends, env: {} });
    app2.use(router2);
    const server2 = await serve(app2);
    const first = await timedGet(`${server2.url}/django_ca/api/ca/`);
    const startup = ms(s0);
    console.log(`start-up at ${TOTAL}: ${startup.toFixed(0)} ms to the first answer (GET /ca/: ${first.count} CAs)`);
    await server2.close();
    await router2.close();
    if (db2 !== db) await db2.destroy();

    console.log(
      `inventory: ${TOTAL} certificates streamed in ${(whole.total / 1000).toFixed(2)} s, peak RSS growth ${(whole.peakRss / MiB).toFixed(0)} MiB`,
    );
  } finally {
    await server.close();
    await router.close();
    await store.close();
  }
}

async function main(): Promise<void> {
  const pg = benchPostgresUrl();
  try {
    if (pg) await withScratchSchema(pg, (url) => run('PostgreSQL', url, () => openDatabase(url)));
    // PGlite in memory cannot be opened twice: start-up reuses the open database (new store and router).
    else await run('PGlite (in memory)', 'memory://', async (open) => open);
  } finally {
    loader.exit();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  loader.kill();
  process.exit(1);
});
