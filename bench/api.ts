/**
 * API benchmark on the example host server's setup (PGlite; also PostgreSQL when BENCH_DATABASE_URL,
 * DATABASE_URL or TEST_DATABASE_URL is a postgres:// URL). Localhost only, bounded loops. Prints:
 *
 *  1. requests/s of GET /ca/{serial}/certs/{serial}/ (Basic auth, credential cache warm) next to a
 *     bare Express route answering the same JSON — the ratio is the API's overhead (target ≥ 0.6);
 *  2. issued certificates/s end to end (POST sign → order issued) for an EC P-256 and an RSA-2048
 *     intermediate, next to raw signatures/s with the same key — the ratio is the cost around signing —
 *     and next to the no-database floor (bench/floor.ts: the same client against a bare route that
 *     only verifies the CSR and signs in memory), with the CPU milliseconds the server and the load
 *     client spent per certificate: on a small machine these say where the ceiling is;
 *  3. event-loop delay p99 while 20 clients with wrong passwords hammer the server (bcrypt must not
 *     run on the event loop);
 *  4. the example server as users run it (bench/example-server.ts: examples/host-server in a child
 *     process of its own, on a database of its own of the same kind, its access log written to a
 *     file) next to the in-process server of part 2, driven by the same load client in two
 *     interleaved halves each: certificates/s of both, the ratio example server / in process
 *     (target, printed only: ≥ 0.8 with ≥ 1.8 cores busy), p50/p95 from POST sign to issued, and
 *     the cores busy (server process, load client, PostgreSQL); the example server runs with
 *     CA_WORKERS=auto (one worker per core on PostgreSQL), or BENCH_EXAMPLE_WORKERS;
 *  5. (`BENCH_PARTS=webhook`, not by default) issued certificates/s with webhooks enabled and no
 *     endpoint, next to the same with an endpoint that never answers (a TCP server that accepts and
 *     stays silent), interleaved in one run: delivery must not slow issuance (docs/operations/webhooks.md).
 *
 * Soundness: the load comes from a separate process (bench/load-client.ts) so that the client does
 * not starve the server's event loop; the API and the bare route are measured the same way, in the
 * same run, with the same concurrency (CLIENTS, default 32); only ratios are comparable between runs
 * on a shared machine.
 *
 *   npm run bench:api
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { monitorEventLoopDelay } from 'perf_hooks';
import express from 'express';
import { startHostServer, type HostServer } from '../examples/host-server/server';
import { serializeJson } from '../lib/api/json';
import { createCaApiRouter } from '../lib';
import { initCa } from '../lib/ca/authorities';
import { certificateToJson } from '../lib/api/serialize';
import type { CaRecord } from '../lib/ports';
import { processCpuMs, processesCpuSince, processesCpuSnapshot, processTreeCpuMs, withCpu } from './cpu';
import { startExampleServer } from './example-server';
import { serve } from './serve';
import { benchCsrPem } from './csr';
import { startFloorServer } from './floor';
import { profiled } from './profile';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';
import { call as httpCall, RemoteLoader, type IssueTarget, type Latency, type LoadJob } from './load-client';
import { measureWebhookCost } from './webhook-cost';

const CLIENTS = Number(process.env.CLIENTS ?? 32);
/** How often an issuing client polls its order (each poll is a request, and a query). */
const POLL_MS = Number(process.env.POLL_MS ?? 20);
/** Which measurements to run (comma-separated): get, issue, wrong, server, webhook. Default get, issue, wrong, server. */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'get,issue,wrong,server').split(','));
/** Which databases to run on (comma-separated): pglite, postgres. Default both (postgres needs a URL). */
const DATABASES = new Set((process.env.API_DATABASES ?? 'pglite,postgres').split(','));
/** Which intermediates issue in the end-to-end part (comma-separated): ec (P-256), rsa (RSA-2048). Default both. */
const ISSUE_KEYS = new Set((process.env.ISSUE_KEYS ?? 'ec,rsa').split(','));
/** API_PROFILE=<dir>: a V8 CPU profile of the server during each end-to-end issuance measurement. */
const PROFILE_DIR = process.env.API_PROFILE;
/** Certificates per issuance measurement. */
const ISSUE_TOTAL = Number(process.env.ISSUE_TOTAL ?? 5000);
/**
 * Certificates issued before each measurement (end to end and floor alike) by the same clients, so
 * that both are measured warm: JIT, caches, the key's signer. 200 was too few: with 4,000 the same
 * server issued 15–25 % more per second, and the load client spent a third less per certificate.
 */
const WARMUP_TOTAL = Number(process.env.WARMUP_TOTAL ?? 4000);

/** The load-generating child process, started once. */
const loader = new RemoteLoader();
const remoteLoad = (job: LoadJob): Promise<number> => loader.run(job);

// The parent only makes a few set-up calls: no keep-alive, so no race with the server closing an idle socket.
const agent = new http.Agent({ keepAlive: false });

function call(url: string, options: { method?: string; auth?: string; body?: string } = {}): ReturnType<typeof httpCall> {
  return httpCall(url, options, agent); // no keep-alive for the set-up calls
}

const fmt = (n: number) => n.toFixed(n >= 100 ? 0 : 1);

async function issueOne(server: HostServer, auth: string, caSerial: string, csr: string): Promise<string> {
  const signed = await call(`${server.apiRoot}/ca/${caSerial}/sign/`, {
    method: 'POST',
    auth,
    body: JSON.stringify({ csr, subject: [{ oid: 'CN', value: 'bench.example.com' }] }),
  });
  if (signed.status !== 200) throw new Error(`sign: ${signed.status} ${signed.body}`);
  const slug = (JSON.parse(signed.body) as { slug: string }).slug;
  for (let i = 0; i < 2000; i++) {
    const order = JSON.parse((await call(`${server.apiRoot}/ca/${caSerial}/orders/${slug}/`, { auth })).body) as {
      status: string;
      serial: string;
      error: string;
    };
    if (order.status === 'issued') return order.serial;
    if (order.status === 'failed') throw new Error(`order failed: ${order.error}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('order not issued');
}

async function rawSignsPerSecond(server: HostServer, ca: CaRecord, hash: 'SHA-256' | 'SHA-512', ms = 1000): Promise<number> {
  const signer = await server.keyBackends[ca.keyBackendAlias].getSigner(ca.keyBackendOptions ?? {});
  const data = randomBytes(600); // about the size of a TBSCertificate
  let n = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await signer.sign(data, { hash });
    n++;
  }
  return n / (ms / 1000);
}

/**
 * `databaseUrl`: the in-process server's (undefined: PGlite in its data directory); `exampleDatabaseUrl`:
 * the example server's, a database of the same kind (undefined: PGlite in its own data directory).
 */
async function run(label: string, databaseUrl: string | undefined, exampleDatabaseUrl?: string): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-'));
  const kek = randomBytes(32).toString('base64');
  const server = await startHostServer({
    dataDir,
    databaseUrl: databaseUrl ?? dataDir,
    port: 0,
    keyEncryptionKey: kek,
    log: () => undefined,
    // Delivery on (in every part, so that a part measures the same server); polled as by default.
    ...(PARTS.has('webhook') ? { webhooks: { enabled: true } } : {}),
  });
  try {
    // A fresh data directory on a fresh database (or scratch schema): the server made the user just now.
    if (!server.credentials) throw new Error('the demo server knows no password for its demo user');
    const auth = `${server.credentials.username}:${server.credentials.password}`;
    const csr = benchCsrPem();
    console.log(`\n== ${label}`);

    if (PARTS.has('get')) await measureGet(server, auth, csr);
    if (PARTS.has('issue')) await measureIssue(server, auth, csr);
    if (PARTS.has('wrong')) await measureWrongPasswords(server);
    if (PARTS.has('server')) await measureExampleServer(server, auth, csr, exampleDatabaseUrl);
    if (PARTS.has('webhook')) {
      const issueJob = (total: number): LoadJob => ({
        kind: 'issue',
        targets: [{ apiRoot: server.apiRoot, caSerial: server.intermediate.serial, auth }],
        csr,
        total,
        clients: CLIENTS,
        pollMs: POLL_MS,
      });
      await measureWebhookCost(server.store, kek, (total) => remoteLoad(issueJob(total)), ISSUE_TOTAL);
    }
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** GET a certificate vs a bare route answering the same JSON. */
async function measureGet(server: HostServer, auth: string, csr: string): Promise<void> {
  const certSerial = await issueOne(server, auth, server.intermediate.serial, csr);
  const certUrl = `${server.apiRoot}/ca/${server.intermediate.serial}/certs/${certSerial}/`;
  const record = (await server.store.findCertificate(server.intermediate.id, certSerial))!;
  const bare = express();
  bare.get('/cert', (_req, res) => {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(serializeJson(certificateToJson(record)));
  });
  const bareServer = await serve(bare);
  const bareUrl = `${bareServer.url}/cert`;
  const job = (url: string, a: string | undefined, total: number): LoadJob => ({
    kind: 'get',
    url,
    ...(a ? { auth: a } : {}),
    total,
    clients: CLIENTS,
  });
  await remoteLoad(job(certUrl, auth, 300)); // warm up (credential cache, JIT)
  await remoteLoad(job(bareUrl, undefined, 300));
  // Interleaved, twice each, best of two: a neighbour's burst on a shared machine hits both alike.
  let apiRps = 0;
  let bareRps = 0;
  for (let round = 0; round < 2; round++) {
    apiRps = Math.max(apiRps, await remoteLoad(job(certUrl, auth, 3000)));
    bareRps = Math.max(bareRps, await remoteLoad(job(bareUrl, undefined, 3000)));
  }
  await bareServer.close();
  console.log(
    `GET certificate: ${fmt(apiRps)} req/s; bare Express route: ${fmt(bareRps)} req/s; ratio ${(apiRps / bareRps).toFixed(2)} (target >= 0.6; ${CLIENTS} clients in a separate process)`,
  );
}

/** Issuance end to end vs raw signatures, EC P-256 and RSA-2048 intermediates. */
async function measureIssue(server: HostServer, auth: string, csr: string): Promise<void> {
  const rsa = await initCa({
    store: server.store,
    keyBackends: server.keyBackends,
    name: 'Bench RSA Intermediate',
    subject: [{ oid: 'CN', value: 'Bench RSA Intermediate' }],
    keyType: 'RSA',
    keySize: 2048,
    algorithm: 'SHA-256',
    parent: server.root,
    apiEnabled: true,
    expiresDays: 365,
  });
  const keys = [
    ['ec', 'EC P-256', server.intermediate, 'SHA-512'],
    ['rsa', 'RSA-2048', rsa, 'SHA-256'],
  ] as const;
  for (const [, name, ca, hash] of keys.filter(([key]) => ISSUE_KEYS.has(key))) {
    const total = ISSUE_TOTAL;
    const job = (apiRoot: string): LoadJob => ({
      kind: 'issue',
      targets: [{ apiRoot, caSerial: ca.serial, auth }],
      csr,
      total,
      clients: CLIENTS,
      pollMs: POLL_MS,
    });
    // Warm up with the same client and concurrency (JIT of both processes, caches, the key's signer).
    await remoteLoad({ ...job(server.apiRoot), total: WARMUP_TOTAL });
    const postgresBefore = processesCpuSnapshot('postgres');
    const wallStart = process.hrtime.bigint();
    const measure = () => withCpu(loader.pid, () => loader.measure(job(server.apiRoot)));
    const profileFile = PROFILE_DIR && path.join(PROFILE_DIR, `api-${name.replace(/\W+/g, '-').toLowerCase()}.cpuprofile`);
    const { value: measured, cpu } = await (profileFile ? profiled(profileFile, measure) : measure());
    const wallMs = Number(process.hrtime.bigint() - wallStart) / 1e6;
    const postgresMs = processesCpuSince(postgresBefore, 'postgres'); // 0 on PGlite (its thread is the server's)
    const perSecond = measured.perSecond;
    const raw = await rawSignsPerSecond(server, ca, hash);
    const floor = await startFloorServer(ca, server.keyBackends);
    let floorRun: Awaited<ReturnType<typeof withCpu<number>>>;
    try {
      await remoteLoad({ ...job(floor.apiRoot), total: WARMUP_TOTAL }); // warm up
      floorRun = await withCpu(loader.pid, () => remoteLoad(job(floor.apiRoot)));
    } finally {
      await floor.close();
    }
    const { value: floorPerSecond, cpu: floorCpu } = floorRun;
    const perCert = (ms: number) => (ms / total).toFixed(2);
    const pct = (share: number) => `${Math.round(share * 100)} %`;
    console.log(
      `issue (${name}): ${fmt(perSecond)} certificates/s end to end (${CLIENTS} clients: POST sign, poll the order every ${POLL_MS} ms); raw crypto.sign: ${fmt(raw)}/s; ratio ${(perSecond / raw).toFixed(3)}`,
    );
    console.log(
      `  latency (POST sign until the order reads issued): p50 ${measured.latency.p50.toFixed(1)} ms, p99 ${measured.latency.p99.toFixed(1)} ms; ${measured.requestsPerOperation.toFixed(2)} requests per certificate; cores busy ${((cpu.server + cpu.client + postgresMs) / wallMs).toFixed(2)} of ${os.cpus().length} (server ${(cpu.server / wallMs).toFixed(2)}, load client ${(cpu.client / wallMs).toFixed(2)}, PostgreSQL ${(postgresMs / wallMs).toFixed(2)})`,
    );
    console.log(
      `  CPU per certificate: server ${perCert(cpu.server)} ms (event loop's thread ${perCert(cpu.serverMain)} ms, busy ${pct(cpu.eventLoop)}), load client ${perCert(cpu.client)} ms, PostgreSQL ${perCert(postgresMs)} ms (${os.cpus().length} CPUs); no-database floor (HTTP + CSR check + signing in memory, one event loop): ${fmt(floorPerSecond)}/s (server ${perCert(floorCpu.server)} ms, event loop's thread ${perCert(floorCpu.serverMain)} ms, busy ${pct(floorCpu.eventLoop)}, client ${perCert(floorCpu.client)} ms per certificate), ratio ${(perSecond / floorPerSecond).toFixed(2)}`,
    );
  }
}

/** Wall time and CPU time (ms) while a measurement runs: the server process, the load client, PostgreSQL. */
interface Spent {
  wallMs: number;
  server: number;
  client: number;
  postgres: number;
}

async function spentAround<T>(serverCpuMs: () => number, work: () => Promise<T>): Promise<{ value: T; spent: Spent }> {
  const now = () => ({
    t: process.hrtime.bigint(),
    server: serverCpuMs(),
    client: loader.pid === undefined ? Number.NaN : processCpuMs(loader.pid),
  });
  const postgresBefore = processesCpuSnapshot('postgres');
  const a = now();
  const value = await work();
  const b = now();
  const postgres = processesCpuSince(postgresBefore, 'postgres'); // 0 on PGlite (its thread is the server's)
  return { value, spent: { wallMs: Number(b.t - a.t) / 1e6, server: b.server - a.server, client: b.client - a.client, postgres } };
}

/** One side of the comparison: certificates, time and CPU summed over the halves; the worse half's latency. */
class Side {
  certificates = 0;
  spent: Spent = { wallMs: 0, server: 0, client: 0, postgres: 0 };
  latency: Latency = { p50: 0, p95: 0, p99: 0 };

  add(certificates: number, latency: Latency, spent: Spent): void {
    this.certificates += certificates;
    for (const k of ['wallMs', 'server', 'client', 'postgres'] as const) this.spent[k] += spent[k];
    this.latency = { p50: Math.max(this.latency.p50, latency.p50), p95: Math.max(this.latency.p95, latency.p95), p99: 0 };
  }

  get perSecond(): number {
    return this.certificates / (this.spent.wallMs / 1000);
  }

  /** `p50 …, p95 …; cores busy …` */
  describe(): string {
    const cores = (ms: number) => (ms / this.spent.wallMs).toFixed(2);
    const { server, client, postgres } = this.spent;
    return (
      `p50 ${this.latency.p50.toFixed(1)} ms, p95 ${this.latency.p95.toFixed(1)} ms (POST sign until issued, worse half); ` +
      `cores busy ${cores(server + client + postgres)} of ${os.cpus().length} (server process ${cores(server)}, load client ${cores(client)}, PostgreSQL ${cores(postgres)})`
    );
  }
}

/**
 * The example server as `npm start` runs it — its own process, its own database of the same kind —
 * next to the in-process server of this run (EC P-256 intermediates both), the same load client and
 * concurrency, two interleaved halves each after a warm-up of both: the ratio is what running it
 * as users do costs (a process boundary is none: the client is a separate process either way; the
 * access log written to a file is one).
 */
async function measureExampleServer(inProcess: HostServer, auth: string, csr: string, databaseUrl: string | undefined): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-example-'));
  const example = await startExampleServer(
    {
      CA_DATA_DIR: dataDir,
      CA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      // docs/guides/getting-started.md "Several cores": one worker per core on PostgreSQL, one process on PGlite.
      CA_WORKERS: process.env.BENCH_EXAMPLE_WORKERS ?? 'auto',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    dataDir,
  );
  try {
    const sides = [
      {
        name: 'example server',
        cpuMs: () => processTreeCpuMs(example.pid),
        target: { apiRoot: example.apiRoot, caSerial: example.caSerial, auth: example.auth },
      },
      // The bench's own process, without its children (the load client is one).
      {
        name: 'in process',
        cpuMs: () => processCpuMs(process.pid),
        target: { apiRoot: inProcess.apiRoot, caSerial: inProcess.intermediate.serial, auth },
      },
    ].map((s) => ({ ...s, figures: new Side() }));
    const job = (target: IssueTarget, total: number): LoadJob => ({
      kind: 'issue',
      targets: [target],
      csr,
      total,
      clients: CLIENTS,
      pollMs: POLL_MS,
    });
    for (const side of sides) await remoteLoad(job(side.target, WARMUP_TOTAL));
    const half = Math.max(CLIENTS, Math.round(ISSUE_TOTAL / 2));
    for (let round = 0; round < 2; round++) {
      for (const side of sides) {
        const { value, spent } = await spentAround(side.cpuMs, () => loader.measure(job(side.target, half)));
        side.figures.add(half, value.latency, spent);
      }
    }
    const [ours, inside] = sides.map((s) => s.figures);
    console.log(
      `example server (npm start's server with CA_WORKERS=${process.env.BENCH_EXAMPLE_WORKERS ?? 'auto'} in a child process, ${CLIENTS} clients, P-256): ${fmt(ours.perSecond)} certificates/s; in process (same run): ${fmt(inside.perSecond)} certificates/s; ratio ${(ours.perSecond / inside.perSecond).toFixed(2)} (target >= 0.8 with >= 1.8 cores busy)`,
    );
    console.log(`  example server: ${ours.describe()}`);
    console.log(`  in process:     ${inside.describe()}`);
  } finally {
    await example.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Event-loop delay while 20 clients send wrong passwords: bcrypt must run off the event loop. Against
 * the same store through a router of its own without the login limiter, which would otherwise lock
 * the name and the address out after a few failures and answer 429 without checking any password.
 */
async function measureWrongPasswords(server: HostServer): Promise<void> {
  const router = createCaApiRouter({ enableRestApi: true, store: server.store, keyBackends: server.keyBackends, loginLimiter: false });
  const app = express();
  app.use(router);
  const listener = await serve(app);
  const url = `${listener.url}/django_ca/api/ca/`;
  try {
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    const rps = await remoteLoad({ kind: 'wrong', url, auth: 'demo:wrong-password', total: 400, clients: 20 });
    histogram.disable();
    console.log(
      `wrong passwords (20 clients): ${fmt(rps)} req/s; event-loop delay p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms, max ${(histogram.max / 1e6).toFixed(1)} ms`,
    );
  } finally {
    await listener.close();
    await router.close();
  }
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  loader.start(); // its start-up falls outside every measurement
  if (DATABASES.has('pglite')) await run('PGlite (embedded)', undefined);
  const pg = benchPostgresUrl();
  if (!DATABASES.has('postgres')) console.log('\n(PostgreSQL left out: API_DATABASES)');
  else if (pg)
    await withScratchSchema(pg, (url) =>
      PARTS.has('server') ? withScratchSchema(pg, (exampleUrl) => run('PostgreSQL', url, exampleUrl)) : run('PostgreSQL', url),
    );
  else console.log('\n(PostgreSQL skipped: set BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL to a postgres:// URL)');
  agent.destroy();
  loader.exit();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
