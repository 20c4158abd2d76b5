/**
 * Admin interface benchmark (docs/guides/admin-interface.md and "Development"): what a signed-in user waits
 * for through `createCaAdminRouter`, over HTTP on loopback, with 200,000 certificates in one CA
 * (copies of a few hundred really signed ones, bench/clone-certificates.ts). PostgreSQL in a scratch
 * schema when BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL is a postgres:// URL, PGlite in
 * memory otherwise. Localhost only, bounded loops. Prints:
 *
 *  1. the certificate list's first page (`certs/`): server time per page, p50 and p95 of ADMIN_ROUNDS
 *     requests (default 200, after 20 not counted);
 *  2. a search by a subjectAltName fragment (`certs/?q=host<n>.exa`, another certificate each time):
 *     the same;
 *  3. the CSV export of every row (`certs/export.csv`), read by the load client in its own process
 *     (bench/load-client.ts): rows, rows/s, time to first byte, MiB, and this process's peak RSS
 *     growth meanwhile — the server's, as nothing else runs here; once with the database's buffer
 *     cache cold (with PGlite it lives in this process, grown once and kept) and once more;
 *  4. one line: `admin: list p95 <n> ms, search p95 <n> ms, export <n> rows/s, +<n> MiB` (the second
 *     export).
 *
 * Server time: from the request's arrival at the host app until its answer is handed to the socket
 * (`finish`). Requests go one at a time, so the client's work overlaps none of it.
 *
 *   npm run bench:admin          ADMIN_CERTIFICATES=20000 ADMIN_ROUNDS=50 npm run bench:admin
 */
import { randomBytes } from 'crypto';
import express from 'express';
import { createApiUser, createCaAdminRouter, defaultKeyBackend, initCa, knexStore, openDatabase } from '../lib';
import { adminSummaryLine, percentile } from './admin-summary';
import { cloneCertificates, signCertificates } from './clone-certificates';
import { RemoteLoader } from './load-client';
import { peakRssGrowthDuring } from './peak-rss';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';
import { serve } from './serve';

const TOTAL = Number(process.env.ADMIN_CERTIFICATES ?? 200_000);
const ROUNDS = Number(process.env.ADMIN_ROUNDS ?? 200);
const WARMUP = 20;
const REAL = 200;
const PASSWORD = 'bench-password';
const MiB = 1024 * 1024;
const loader = new RemoteLoader();

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

/** Sign in as a browser does (the form's token and its cookie); the session's Cookie header. */
async function signIn(admin: string): Promise<string> {
  const form = await fetch(`${admin}login`);
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const res = await fetch(`${admin}login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookiesOf(form) },
    body: new URLSearchParams({ _csrf: token, username: 'bench', password: PASSWORD, next: '' }),
  });
  const session = cookiesOf(res);
  if (res.status !== 303 || !session.includes('ca_admin=')) throw new Error(`sign-in: ${res.status}`);
  return session;
}

async function run(label: string, databaseUrl: string): Promise<void> {
  console.log(`\n== ${label} ==`);
  const db = await openDatabase(databaseUrl);
  const store = knexStore(db);
  await store.migrate();
  const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) };
  const ca = await initCa({ store, keyBackends, keyType: 'EC', name: 'big', subject: [{ oid: 'CN', value: 'Big CA' }], expiresDays: 730 });
  await createApiUser(store, 'bench', PASSWORD, { useAdmin: true, viewCertificate: true }, { bcryptCost: 4 });

  const t0 = process.hrtime.bigint();
  await signCertificates(store, keyBackends, ca, REAL);
  await cloneCertificates(db, ca.id, TOTAL - REAL, 'B', 'host');
  await db.raw('analyze ca_api_certificates');
  console.log(`set-up: ${TOTAL} certificates (${REAL} signed, the rest copies) in ${(ms(t0) / 1000).toFixed(1)} s`);

  // The server time of each answer, handed to whoever waits for it (one request at a time).
  let serverTime: ((ms: number) => void) | null = null;
  const app = express();
  app.use((_req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => serverTime?.(ms(start)));
    next();
  });
  const router = createCaAdminRouter({ store, env: {} });
  app.use(router);
  const server = await serve(app);
  const admin = `${server.url}/admin/`;
  try {
    const cookie = await signIn(admin);
    const timedGet = async (path: string, expect: string): Promise<number> => {
      const measured = new Promise<number>((resolve) => (serverTime = resolve));
      const res = await fetch(`${admin}${path}`, { headers: { Cookie: cookie } });
      const body = await res.text();
      if (res.status !== 200 || !body.includes(expect)) throw new Error(`GET ${path}: ${res.status}, without ${expect}`);
      return measured;
    };
    const pages = async (name: string, page: (i: number) => [string, string]): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < WARMUP + ROUNDS; i++) {
        const t = await timedGet(...page(i));
        if (i >= WARMUP) times.push(t);
      }
      const p95 = percentile(times, 95);
      console.log(
        `${name} at ${TOTAL}: server time p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms (${ROUNDS} pages)`,
      );
      return p95;
    };

    // 1. the list's first page: 50 rows and a link to the next
    const listP95 = await pages('certificate list, first page', () => ['certs/', 'rel="next"']);
    // 2. a SAN fragment that names one certificate, another one each time
    const copies = TOTAL - REAL;
    const searchP95 = await pages('search by SAN fragment', (i) => {
      const n = 1 + ((i * 7919 + 17) % copies);
      return [`certs/?${new URLSearchParams({ q: `host${n}.exa` })}`, `host${n}.example.com</a>`];
    });

    // 3. the export of every row, twice
    const exportOnce = async (name: string) => {
      global.gc?.();
      const served = new Promise<number>((resolve) => (serverTime = resolve));
      const { result, peakRss } = await peakRssGrowthDuring(() =>
        loader.stream({ kind: 'stream', url: `${admin}certs/export.csv`, cookie }),
      );
      const rows = result.lines - 1;
      if (rows !== TOTAL) throw new Error(`export: ${rows} rows, expected ${TOTAL}`);
      const perSecond = rows / (result.totalMs / 1000);
      console.log(
        `${name} of ${rows} rows: ${perSecond.toFixed(0)} rows/s, total ${(result.totalMs / 1000).toFixed(2)} s ` +
          `(server ${((await served) / 1000).toFixed(2)} s), first byte ${result.ttfbMs.toFixed(0)} ms, ` +
          `${(result.bytes / MiB).toFixed(1)} MiB, peak RSS growth ${(peakRss / MiB).toFixed(1)} MiB`,
      );
      return { perSecond, peakRssMiB: peakRss / MiB };
    };
    await exportOnce('CSV export, first (cold database cache)');
    const exported = await exportOnce('CSV export');

    console.log(adminSummaryLine({ listP95, searchP95, exportRowsPerSecond: exported.perSecond, exportRssGrowthMiB: exported.peakRssMiB }));
  } finally {
    await server.close();
    await router.close();
    await store.close();
  }
}

async function main(): Promise<void> {
  const pg = benchPostgresUrl();
  try {
    if (pg) await withScratchSchema(pg, (url) => run('PostgreSQL', url));
    else await run('PGlite (in memory)', 'memory://');
  } finally {
    loader.exit();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  loader.kill();
  process.exit(1);
});
