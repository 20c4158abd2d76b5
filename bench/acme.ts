/**
 * ACME benchmark as a real client sees it, with pebble as the anchor in the same run.
 *
 * Servers, each its own process, all over HTTPS on loopback with one TLS certificate made here with
 * `openssl` (a throwaway CA the client trusts, and only it):
 *  - the example server (examples/host-server, bench/example-server.ts) with CA_ENABLE_ACME=true,
 *    TLS_CERT_FILE/TLS_KEY_FILE, and its own challenge validator resolving names through the load
 *    client's DNS server (CA_ACME_DNS_SERVERS) and fetching http-01 answers over the network from the
 *    load client's responder (CA_ACME_HTTP01_PORT): on PostgreSQL (BENCH_DATABASE_URL, else
 *    DATABASE_URL or TEST_DATABASE_URL; a scratch schema; the server's durability settings printed,
 *    fsync on is the default) and on PGlite in a directory on disk (ACME_DATA_DIR, default the
 *    system's temporary directory);
 *  - Debian's pebble (PEBBLE, default /usr/bin/pebble) with `-dnsserver` at the same DNS server, its
 *    `httpPort` at the same responder, PEBBLE_VA_NOSLEEP=1, PEBBLE_WFE_NONCEREJECT=0,
 *    PEBBLE_AUTHZREUSE=0 and never PEBBLE_VA_ALWAYS_VALID: every challenge is really validated.
 *
 * The client is bench/acme-load.ts (raw RFC 8555 JWS over keep-alive HTTPS, in a child process):
 * ACME_CLIENTS accounts (default 16) per server in closed loops, one DNS name per order. After a
 * warm-up of each server (ACME_WARMUP_SECONDS, default 3), ACME_SECONDS (default 15) per server in
 * two halves, interleaved (PostgreSQL, PGlite, pebble, and again): a neighbour's burst on a shared
 * machine hits all alike. Printed per server: orders/s, p50/p95/p99 per order, the mean time per step,
 * cores busy (server process, ACME client, PostgreSQL); then the p50 per request type side by side,
 * the ratios ours / pebble (targets printed, never asserted: ≥ 1.2× on PostgreSQL, ≥ 0.75× on PGlite)
 * and, last, one line:
 *
 *   acme: <n> orders/s PostgreSQL, <n> orders/s PGlite, pebble <n> orders/s, p50 <n> ms, p95 <n> ms
 *
 * (p50/p95 of the PostgreSQL run, or of PGlite's when PostgreSQL is not measured). `ACME_MODE=router`
 * runs the older in-process mode instead (bench/acme-router.ts: the router mounted in this process
 * over HTTP, next to REST; ACME_QUERIES, ACME_PROFILE).
 *
 *   npm run bench:acme        ACME_CLIENTS=16 ACME_SECONDS=15 ACME_SERVERS=postgres,pglite,pebble
 */
import { spawn, type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { openDatabase } from '../adapters/store/database';
import { AcmeLoader, ACME_REQUESTS, ACME_STEPS, type AcmeRequest, type AcmeRunFigures, type AcmeSetup } from './acme-load';
import { main as routerMode } from './acme-router';
import { acmeSummaryLine, pebbleRatioLine } from './acme-summary';
import { processCpuMs, processesCpuSince, processesCpuSnapshot } from './cpu';
import { startExampleServer, type ExampleServer } from './example-server';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';
import { makeTls } from './tls';

const CLIENTS = Number(process.env.ACME_CLIENTS ?? 16);
const ACME_SECONDS = Number(process.env.ACME_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.ACME_WARMUP_SECONDS ?? 3);
/** Which servers to run (comma-separated): postgres, pglite, pebble. Default all three. */
const SERVERS = new Set((process.env.ACME_SERVERS ?? 'postgres,pglite,pebble').split(','));
const PEBBLE = process.env.PEBBLE ?? '/usr/bin/pebble';
/** Where PGlite's directory (and the servers' logs and TLS files) go: on disk, not in memory. */
const DATA_PARENT = process.env.ACME_DATA_DIR ?? os.tmpdir();

type Key = 'postgres' | 'pglite' | 'pebble';

/** A server under measurement: where its directory is, which process to charge. */
interface Target {
  key: Key;
  label: string;
  pid: number;
  directory: string;
  stop(): Promise<void>;
}

interface Cpu {
  wallMs: number;
  server: number;
  client: number;
  postgres: number;
}

interface Figures {
  runs: AcmeRunFigures[];
  cpu: Cpu;
  /** The requests that registered the accounts (new-nonce, new-account), before the warm-up. */
  registration: Record<AcmeRequest, number[]>;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : Number.NaN;
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 1) : 'n/a');

/** A loopback port free just now (pebble takes its ports from its configuration file). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** pebble on loopback, validating for real through the load client's DNS server and http-01 responder. */
async function startPebble(dir: string, tls: { certFile: string; keyFile: string }, setup: AcmeSetup): Promise<Target> {
  const [listen, management, tlsPort] = [await freePort(), await freePort(), await freePort()];
  const config = path.join(dir, 'pebble-config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${listen}`,
        managementListenAddress: `127.0.0.1:${management}`,
        certificate: tls.certFile,
        privateKey: tls.keyFile,
        httpPort: setup.http01Port,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' };
  delete env.PEBBLE_VA_ALWAYS_VALID; // validation must happen
  const logFile = path.join(dir, 'pebble.log');
  const log = fs.openSync(logFile, 'w');
  const child: ChildProcess = spawn(PEBBLE, ['-config', config, '-dnsserver', setup.dns], { env, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  let error: Error | null = null;
  child.once('error', (e) => (error = e));
  for (let waited = 0; ; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    const out = fs.readFileSync(logFile, 'utf8');
    if (/ACME directory available at/.test(out)) break;
    if (error || child.exitCode !== null || waited > 30_000) {
      await stop();
      throw new Error(`pebble did not start (${String(error ?? `exit ${child.exitCode}`)}):\n${out.slice(-2000)}`);
    }
  }
  return { key: 'pebble', label: 'pebble', pid: child.pid!, directory: `https://127.0.0.1:${listen}/dir`, stop };
}

/** The example server with ACME on, over HTTPS, validating through the load client's DNS server and responder. */
async function startOurs(
  key: 'postgres' | 'pglite',
  databaseUrl: string | null,
  tls: { certFile: string; keyFile: string },
  setup: AcmeSetup,
): Promise<Target> {
  const dataDir = fs.mkdtempSync(path.join(DATA_PARENT, 'bench-acme-'));
  let server: ExampleServer;
  try {
    server = await startExampleServer(
      {
        CA_DATA_DIR: dataDir,
        CA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        TLS_CERT_FILE: tls.certFile,
        TLS_KEY_FILE: tls.keyFile,
        CA_ENABLE_ACME: 'true',
        CA_ACME_DNS_SERVERS: setup.dns,
        CA_ACME_HTTP01_PORT: String(setup.http01Port),
      },
      dataDir,
    );
  } catch (e) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  if (!server.acmeDirectory) throw new Error('the example server printed no ACME directory');
  const label = key === 'postgres' ? 'example server, PostgreSQL' : `example server, PGlite (on disk: ${dataDir})`;
  return {
    key,
    label,
    pid: server.pid,
    directory: server.acmeDirectory,
    stop: async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU of the server process, the ACME client and every `postgres` process while `work` runs. */
async function measured<T>(serverPid: number, clientPid: number | undefined, work: () => Promise<T>): Promise<{ value: T; cpu: Cpu }> {
  const postgresBefore = processesCpuSnapshot('postgres');
  const now = () => ({
    t: process.hrtime.bigint(),
    server: processCpuMs(serverPid),
    client: clientPid === undefined ? Number.NaN : processCpuMs(clientPid),
  });
  const a = now();
  const value = await work();
  const b = now();
  const postgres = processesCpuSince(postgresBefore, 'postgres');
  return { value, cpu: { wallMs: Number(b.t - a.t) / 1e6, server: b.server - a.server, client: b.client - a.client, postgres } };
}

interface Result {
  ordersPerSecond: number;
  p50: number;
  p95: number;
  /** p50 ms and count per request type. */
  requests: Record<string, { p50: number; n: number }>;
}

function report(target: Target, figures: Figures): Result {
  const { runs, cpu, registration } = figures;
  const orders = runs.reduce((n, r) => n + r.orders, 0);
  const ordersPerSecond = orders / (runs.reduce((ms, r) => ms + r.elapsedMs, 0) / 1000);
  const sorted = runs.flatMap((r) => r.durations).sort((x, y) => x - y);
  const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(sorted, p));
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const polls = runs.reduce((n, r) => n + r.polls, 0);
  const steps = ACME_STEPS.map((s) => `${s} ${(runs.reduce((ms, r) => ms + r.stepMs[s], 0) / orders).toFixed(1)}`).join(', ');
  const share = (ms: number) => (ms / cpu.wallMs).toFixed(2);
  console.log(`\n== ${target.label}`);
  console.log(
    `ACME: ${fmt(ordersPerSecond)} orders/s (${CLIENTS} accounts, ${orders} orders in ${(cpu.wallMs / 1000).toFixed(1)} s); per order p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
  );
  console.log(`  mean ms per step: ${steps}`);
  console.log(
    `  ${(requests / orders).toFixed(2)} HTTPS requests per order (+ 1 http-01 fetch and DNS queries by the server), ${polls} polls; ` +
      `cores busy ${share(cpu.server + cpu.client + cpu.postgres)} of ${os.cpus().length} (server process ${share(cpu.server)}, ACME client ${share(cpu.client)}, PostgreSQL ${share(cpu.postgres)})`,
  );
  const byType: Result['requests'] = {};
  for (const type of ACME_REQUESTS) {
    const all = [...registration[type], ...runs.flatMap((r) => r.requestMs[type])].sort((x, y) => x - y);
    byType[type] = { p50: percentile(all, 50), n: all.length };
  }
  return { ordersPerSecond, p50, p95, requests: byType };
}

/** PostgreSQL's durability settings, printed so that a run on a server with fsync off says so. */
async function durability(url: string): Promise<string> {
  const db = await openDatabase(url);
  try {
    const show = async (name: string) => ((await db.raw(`show ${name}`)) as { rows: Record<string, string>[] }).rows[0][name];
    const [fsync, synchronousCommit] = [await show('fsync'), await show('synchronous_commit')];
    const note = fsync === 'on' && synchronousCommit === 'on' ? 'the default durability' : 'NOT the default durability';
    return `fsync ${fsync}, synchronous_commit ${synchronousCommit} (${note})`;
  } finally {
    await db.destroy();
  }
}

async function measureAll(targets: Target[], acme: AcmeLoader): Promise<Map<Key, Result>> {
  const figures = new Map<Key, Figures>();
  for (const t of targets) {
    const registration = await acme.accounts(t.directory, CLIENTS, t.key);
    figures.set(t.key, { runs: [], cpu: { wallMs: 0, server: 0, client: 0, postgres: 0 }, registration });
    await acme.run(WARMUP_SECONDS * 1000, t.key); // JIT of both processes, caches, the CA's signer, TLS sessions
  }
  for (let half = 0; half < 2; half++) {
    for (const t of targets) {
      const { value, cpu } = await measured(t.pid, acme.pid, () => acme.run((ACME_SECONDS * 1000) / 2, t.key));
      const f = figures.get(t.key)!;
      f.runs.push(value);
      for (const k of ['wallMs', 'server', 'client', 'postgres'] as const) f.cpu[k] += cpu[k];
    }
  }
  return new Map(targets.map((t) => [t.key, report(t, figures.get(t.key)!)]));
}

function requestTable(results: Map<Key, Result>, keys: Key[]): void {
  const names: Record<Key, string> = { postgres: 'PostgreSQL', pglite: 'PGlite', pebble: 'pebble' };
  console.log(
    `\np50 ms per request type, sent until the answer is read (count; new-nonce and new-account include the registration of the accounts before the warm-up): ${keys.map((k) => names[k]).join(' | ')}`,
  );
  for (const type of ACME_REQUESTS) {
    const cells = keys.map((k) => {
      const r = results.get(k)!.requests[type];
      return r.n ? `${r.p50.toFixed(1)} (${r.n})` : '-';
    });
    console.log(`  ${type.padEnd(12)} ${cells.join(' | ')}`);
  }
}

async function main(): Promise<void> {
  if (process.env.ACME_MODE === 'router') {
    await routerMode();
    return;
  }
  const started = Date.now();
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}); ${CLIENTS} accounts per server, ${ACME_SECONDS} s per server in two interleaved halves after ${WARMUP_SECONDS} s of warm-up`,
  );
  const workDir = fs.mkdtempSync(path.join(DATA_PARENT, 'bench-acme-tls-'));
  const acme = new AcmeLoader();
  const targets: Target[] = [];
  let results = new Map<Key, Result>();
  try {
    const tls = makeTls(workDir);
    const setup = await acme.setup(fs.readFileSync(tls.caFile, 'utf8'));
    const pg = benchPostgresUrl();
    const body = async (pgUrl: string | null) => {
      if (pgUrl) targets.push(await startOurs('postgres', pgUrl, tls, setup));
      if (SERVERS.has('pglite')) targets.push(await startOurs('pglite', null, tls, setup));
      if (SERVERS.has('pebble')) {
        if (fs.existsSync(PEBBLE)) targets.push(await startPebble(workDir, tls, setup));
        else console.log(`(pebble left out: ${PEBBLE} not found; Debian's package pebble, or set PEBBLE)`);
      }
      results = await measureAll(targets, acme);
    };
    if (!SERVERS.has('postgres')) {
      console.log('(PostgreSQL left out: ACME_SERVERS)');
      await body(null);
    } else if (!pg) {
      console.log('(PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to a postgres:// URL)');
      await body(null);
    } else {
      console.log(`PostgreSQL: ${await durability(pg)}`);
      await withScratchSchema(pg, async (url) => {
        try {
          await body(url);
        } finally {
          // Stopped before the schema is dropped: the server holds connections to it.
          for (const t of targets.splice(0)) await t.stop();
        }
      });
    }
  } finally {
    for (const t of targets) await t.stop();
    acme.exit();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  requestTable(
    results,
    (['postgres', 'pglite', 'pebble'] as const).filter((k) => results.has(k)),
  );
  const rate = (k: Key) => results.get(k)?.ordersPerSecond ?? null;
  const shown = results.get('postgres') ?? results.get('pglite');
  const summary = {
    postgres: rate('postgres'),
    pglite: rate('pglite'),
    pebble: rate('pebble'),
    p50: shown?.p50 ?? null,
    p95: shown?.p95 ?? null,
  };
  console.log(`\n${pebbleRatioLine(summary)}`);
  console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
  console.log(acmeSummaryLine(summary));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
