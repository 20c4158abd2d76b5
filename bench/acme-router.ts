/**
 * ACME benchmark, router mode (`ACME_MODE=router npm run bench:acme`; the default is bench/acme.ts:
 * the example server over HTTPS next to pebble): complete orders per second — new-order → authorization → http-01 challenge →
 * finalize → certificate download, one DNS name each — by ACME_CLIENTS accounts (default 32) in closed
 * loops, on PGlite and on PostgreSQL (BENCH_DATABASE_URL, else DATABASE_URL or TEST_DATABASE_URL;
 * skipped with a note when none is a postgres:// URL), and in the same run, on the same server and
 * database, the REST API's issuance rate with as many clients (bench/load-client.ts's `issue` job:
 * POST sign, poll the order) — the ACME rate as a share of it is the figure to compare between runs.
 *
 * The server is the package's router (REST and ACME) on a fresh store with a P-256 root, a P-256
 * issuing CA taking ACME clients and an API user; its challenge validator is the package's own,
 * pointed at the load client's DNS server and http-01 port. The ACME clients run in a child process
 * (bench/acme-load.ts: raw JWS over keep-alive HTTP, its own DNS and http-01 answers) so that their
 * CPU is measured apart from the server's; the REST clients in another (bench/load-client.ts).
 *
 * Per database: a warm-up of both, then ACME and REST measured in two interleaved halves each (a
 * neighbour's burst on a shared machine hits both alike). Prints orders/s, p50/p95/p99 per order, the
 * time per step, how busy the cores were (server, client, PostgreSQL) and the CPU per order; then the
 * REST figures and the ratio. Ends with one line:
 *
 *   acme: <n> orders/s PostgreSQL, <n> orders/s PGlite, p50 <n> ms, p95 <n> ms
 *
 * (p50/p95 of the PostgreSQL run, or of PGlite when there is no PostgreSQL).
 *
 *   ACME_MODE=router npm run bench:acme        ACME_CLIENTS=32 ACME_SECONDS=20 REST_SECONDS=8 BENCH_DATABASE_URL=postgres://…
 */
import { randomBytes } from 'crypto';
import express from 'express';
import type { Knex } from 'knex';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { challengeValidator } from '../adapters/acme-validation';
import { createApiUser, createCaApiRouter, defaultKeyBackend, initCa, knexStore, openDatabase, type CaApiRouter, type Store } from '../lib';
import { AcmeLoader, ACME_STEPS, type AcmeRunFigures, type AcmeSetup } from './acme-load';
import { processesCpuMs, processCpuMs } from './cpu';
import { profiled } from './profile';
import { benchCsrPem } from './csr';
import { RemoteLoader, type LoadJob } from './load-client';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';

const CLIENTS = Number(process.env.ACME_CLIENTS ?? 32);
const ACME_SECONDS = Number(process.env.ACME_SECONDS ?? 20);
const REST_SECONDS = Number(process.env.REST_SECONDS ?? 8);
const WARMUP_SECONDS = Number(process.env.ACME_WARMUP_SECONDS ?? 3);
/** How often a REST client polls its order (as bench/api.ts). */
const POLL_MS = Number(process.env.POLL_MS ?? 20);
const HOUR = 3_600_000;
/** Which databases to run on (comma-separated): postgres, pglite. Default both. */
const DATABASES = new Set((process.env.ACME_DATABASES ?? 'postgres,pglite').split(','));
/** ACME_QUERIES=1: count the server's SQL statements per order and the time they took (knex events). */
const QUERIES = process.env.ACME_QUERIES === '1';
/** ACME_PROFILE=<dir>: a V8 CPU profile of the server process during the first ACME half, per database. */
const PROFILE_DIR = process.env.ACME_PROFILE;

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 1) : 'n/a');

interface Cpu {
  wallMs: number;
  server: number;
  client: number;
  postgres: number;
}

/** CPU of this process, the client process `pid` and every `postgres` process while `work` runs. */
async function measured<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ value: T; cpu: Cpu }> {
  const now = () => {
    const u = process.cpuUsage();
    return {
      t: process.hrtime.bigint(),
      server: (u.user + u.system) / 1000,
      client: pid === undefined ? 0 : processCpuMs(pid),
      postgres: processesCpuMs('postgres'),
    };
  };
  const a = now();
  const value = await work();
  const b = now();
  return {
    value,
    cpu: { wallMs: Number(b.t - a.t) / 1e6, server: b.server - a.server, client: b.client - a.client, postgres: b.postgres - a.postgres },
  };
}

function addCpu(a: Cpu, b: Cpu): Cpu {
  return { wallMs: a.wallMs + b.wallMs, server: a.server + b.server, client: a.client + b.client, postgres: a.postgres + b.postgres };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : Number.NaN;
}

function coresLine(cpu: Cpu, clientName: string): string {
  const share = (ms: number) => (ms / cpu.wallMs).toFixed(2);
  return `cores busy ${share(cpu.server + cpu.client + cpu.postgres)} of ${os.cpus().length} (server ${share(cpu.server)}, ${clientName} ${share(cpu.client)}, PostgreSQL ${share(cpu.postgres)})`;
}

function perUnitLine(cpu: Cpu, n: number, clientName: string): string {
  const per = (ms: number) => (ms / n).toFixed(2);
  return `server ${per(cpu.server)} ms, ${clientName} ${per(cpu.client)} ms, PostgreSQL ${per(cpu.postgres)} ms`;
}

export interface DatabaseFigures {
  ordersPerSecond: number;
  p50: number;
  p95: number;
  restPerSecond: number;
}

interface BenchServer {
  base: string;
  /** With ACME_QUERIES=1: SQL statements seen since the last reset, by text. */
  queries: QueryStats;
  store: Store;
  caSerial: string;
  auth: string;
  close(): Promise<void>;
}

/** The server's SQL statements by text (numbers and quoted values folded): count and ms from sent to answered. */
class QueryStats {
  private readonly started = new Map<string, { sql: string; t: bigint }>();
  private byText = new Map<string, { n: number; ms: number }>();

  attach(db: Knex): void {
    type QueryEvent = { __knexQueryUid: string; sql: string };
    db.on('query', (q: QueryEvent) => this.started.set(q.__knexQueryUid, { sql: q.sql, t: process.hrtime.bigint() }));
    const done = (_: unknown, q: QueryEvent) => {
      const s = this.started.get(q.__knexQueryUid);
      if (!s) return;
      this.started.delete(q.__knexQueryUid);
      const text = s.sql.replace(/\$\d+/g, '?').replace(/\s+/g, ' ').slice(0, 160);
      const entry = this.byText.get(text) ?? { n: 0, ms: 0 };
      entry.n++;
      entry.ms += Number(process.hrtime.bigint() - s.t) / 1e6;
      this.byText.set(text, entry);
    };
    db.on('query-response', (r: unknown, q: QueryEvent) => done(r, q));
    db.on('query-error', (e: unknown, q: QueryEvent) => done(e, q));
  }

  reset(): void {
    this.byText = new Map();
  }

  /** The statements since the last reset, per `unit` (an ACME order, a REST certificate); then reset. */
  print(orders: number, unit: string): void {
    const all = [...this.byText.entries()].sort((a, b) => b[1].ms - a[1].ms);
    const n = all.reduce((sum, [, e]) => sum + e.n, 0);
    this.reset();
    console.log(
      `  SQL: ${(n / orders).toFixed(1)} statements per ${unit} (BEGIN/COMMIT not counted); by time from sent to answered (per ${unit}: count, ms):`,
    );
    for (const [text, e] of all.slice(0, Number(process.env.ACME_QUERIES_TOP ?? 20)))
      console.log(`    ${(e.n / orders).toFixed(2)}  ${(e.ms / orders).toFixed(2)} ms  ${text}`);
  }
}

/** The package's router with REST and ACME over a fresh store: a P-256 root and issuing CA, an API user. */
async function startServer(databaseUrl: string, setup: AcmeSetup): Promise<BenchServer> {
  const db = await openDatabase(databaseUrl);
  const queries = new QueryStats();
  if (QUERIES) queries.attach(db);
  const store = knexStore(db);
  await store.migrate();
  const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32).toString('base64') }) };
  const base = { store, keyBackends, keyType: 'EC' as const, defaultHostname: 'localhost' };
  const root = await initCa({ ...base, name: 'Bench Root', subject: [{ oid: 'CN', value: 'Bench Root' }], pathLength: 1 });
  const ca = await initCa({
    ...base,
    name: 'Bench Issuing',
    subject: [{ oid: 'CN', value: 'Bench Issuing' }],
    parent: root,
    apiEnabled: true,
    expiresDays: 365,
    acme: { acmeEnabled: true, acmeRegistration: true, acmeRequiresContact: false },
  });
  const password = randomBytes(12).toString('base64url');
  await createApiUser(store, 'bench', password);
  const router: CaApiRouter = createCaApiRouter({
    enableRestApi: true,
    store,
    keyBackends,
    acme: {
      enabled: true,
      validator: challengeValidator({ dnsServers: [setup.dns], http01Port: setup.http01Port, timeoutMs: 5000 }),
      // The default limits' queries run on every new order and account; limits no bench run reaches.
      newOrdersPerAccount: { limit: 1_000_000, windowMs: 3 * HOUR },
      newAccountsPerAddress: { limit: 1_000_000, windowMs: 3 * HOUR },
    },
    logError: (message, error) => console.error(message, error),
  });
  const app = express();
  app.use(router);
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    queries,
    store,
    caSerial: ca.serial,
    auth: `bench:${password}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await router.close();
      await store.close();
    },
  };
}

async function runOn(label: string, databaseUrl: string, acme: AcmeLoader, setup: AcmeSetup, rest: RemoteLoader): Promise<DatabaseFigures> {
  console.log(`\n== ${label}`);
  const server = await startServer(databaseUrl, setup);
  try {
    await acme.accounts(`${server.base}/django_ca/acme/directory/${server.caSerial}/`, CLIENTS);
    const csr = benchCsrPem();
    const restJob = (seconds: number): LoadJob => ({
      kind: 'issue',
      targets: [{ apiRoot: `${server.base}/django_ca/api`, caSerial: server.caSerial, auth: server.auth }],
      csr,
      total: 0,
      clients: CLIENTS,
      pollMs: POLL_MS,
      durationMs: seconds * 1000,
    });
    // Warm up both (JIT of all three processes, caches, the CA's signer, the credential cache).
    await acme.run(WARMUP_SECONDS * 1000);
    await rest.measure(restJob(Math.max(1, WARMUP_SECONDS / 2)));

    // Interleaved halves: ACME, REST, ACME, REST.
    let acmeCpu: Cpu = { wallMs: 0, server: 0, client: 0, postgres: 0 };
    let restCpu: Cpu = { ...acmeCpu };
    const runs: AcmeRunFigures[] = [];
    let restCount = 0;
    const restLatencies: { p50: number; p95: number; p99: number }[] = [];
    server.queries.reset();
    for (let half = 0; half < 2; half++) {
      const halfRun = () => acme.run((ACME_SECONDS * 1000) / 2);
      const file = PROFILE_DIR && half === 0 ? path.join(PROFILE_DIR, `acme-${label.split(' ')[0].toLowerCase()}.cpuprofile`) : null;
      const a = await measured(acme.pid, file ? () => profiled(file, halfRun) : halfRun);
      if (QUERIES && half === 0) server.queries.print(a.value.orders, 'ACME order');
      // The load client counts an order it gave up instead of failing (bench/acme.ts's anchors may stall); ours in this process must not.
      const { stalled, failed, firstError } = a.value;
      if (stalled || failed)
        throw new Error(`ACME orders not completed: ${stalled} stalled, ${failed} failed (first: ${firstError ?? 'a stall'})`);
      runs.push(a.value);
      acmeCpu = addCpu(acmeCpu, a.cpu);
      const r = await measured(rest.pid, () => rest.measure(restJob(REST_SECONDS / 2)));
      restCount += (r.value.perSecond * r.cpu.wallMs) / 1000;
      if (QUERIES && half === 0) server.queries.print((r.value.perSecond * r.cpu.wallMs) / 1000, 'REST certificate');
      restLatencies.push(r.value.latency as { p50: number; p95: number; p99: number });
      restCpu = addCpu(restCpu, r.cpu);
    }

    const orders = runs.reduce((n, r) => n + r.orders, 0);
    const ordersPerSecond = orders / (runs.reduce((ms, r) => ms + r.elapsedMs, 0) / 1000);
    const sorted = runs.flatMap((r) => r.durations).sort((x, y) => x - y);
    const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(sorted, p));
    const requests = runs.reduce((n, r) => n + r.requests, 0);
    const polls = runs.reduce((n, r) => n + r.polls, 0);
    const steps = ACME_STEPS.map((s) => `${s} ${(runs.reduce((ms, r) => ms + r.stepMs[s], 0) / orders).toFixed(1)}`).join(', ');
    console.log(
      `ACME: ${fmt(ordersPerSecond)} orders/s (${CLIENTS} accounts, ${orders} orders in ${(acmeCpu.wallMs / 1000).toFixed(1)} s: new-order, authorization, http-01 challenge, finalize, certificate; one DNS name each)`,
    );
    console.log(`  per order: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; mean ms per step: ${steps}`);
    console.log(
      `  ${(requests / orders).toFixed(2)} ACME requests per order (+ 1 http-01 fetch, 2 DNS queries), ${polls} polls; ${coresLine(acmeCpu, 'ACME client')}`,
    );
    console.log(`  CPU per order: ${perUnitLine(acmeCpu, orders, 'ACME client (with its DNS and http-01 server)')}`);

    const restPerSecond = restCount / (restCpu.wallMs / 1000);
    const restP50 = Math.max(...restLatencies.map((l) => l.p50));
    const restP95 = Math.max(...restLatencies.map((l) => l.p95));
    console.log(
      `REST: ${fmt(restPerSecond)} certificates/s (${CLIENTS} clients: POST sign, poll the order every ${POLL_MS} ms; ${Math.round(restCount)} in ${(restCpu.wallMs / 1000).toFixed(1)} s); p50 ${restP50.toFixed(1)} ms, p95 ${restP95.toFixed(1)} ms (worse half)`,
    );
    console.log(`  ${coresLine(restCpu, 'load client')}; CPU per certificate: ${perUnitLine(restCpu, restCount, 'load client')}`);
    console.log(
      `ACME / REST: ${(ordersPerSecond / restPerSecond).toFixed(2)} (complete ACME orders per REST issuance, same run, same database)`,
    );
    return { ordersPerSecond, p50, p95, restPerSecond };
  } finally {
    await server.close();
  }
}

export async function main(): Promise<void> {
  const started = Date.now();
  console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}); ${CLIENTS} clients`);
  const acme = new AcmeLoader();
  const rest = new RemoteLoader().start();
  const setup = await acme.setup();
  let postgres: DatabaseFigures | null = null;
  let pglite: DatabaseFigures | null = null;
  const pg = [process.env.BENCH_DATABASE_URL].find((u): u is string => !!u && /^postgres(ql)?:\/\//i.test(u)) ?? benchPostgresUrl();
  try {
    if (!DATABASES.has('postgres')) console.log('\n(PostgreSQL left out: ACME_DATABASES)');
    else if (!pg) console.log('\n(PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to a postgres:// URL)');
    else
      await withScratchSchema(pg, async (url) => {
        postgres = await runOn('PostgreSQL', url, acme, setup, rest);
      });
    if (DATABASES.has('pglite')) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-acme-'));
      try {
        pglite = await runOn('PGlite (embedded)', dataDir, acme, setup, rest);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
    const pgFigures = postgres as DatabaseFigures | null;
    const shown = pgFigures ?? pglite;
    const rate = (f: DatabaseFigures | null) => (f ? fmt(f.ordersPerSecond) : 'n/a');
    const ms = (n: number | undefined) => (n === undefined ? 'n/a' : n.toFixed(0));
    console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
    console.log(
      `acme (router in process): ${rate(pgFigures)} orders/s PostgreSQL, ${rate(pglite)} orders/s PGlite, p50 ${ms(shown?.p50)} ms, p95 ${ms(shown?.p95)} ms`,
    );
  } finally {
    acme.exit();
    rest.exit();
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
