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
 *    PEBBLE_AUTHZREUSE=0 and never PEBBLE_VA_ALWAYS_VALID: every challenge is really validated;
 *  - smallstep's step-ca when built (STEPCA_BIN; bench/acme-stepca.ts): BadgerDB on disk in a temporary
 *    directory, `--resolver` at the same DNS server, http-01 fetched on port 80, where the load client's
 *    responder then listens too. Without STEPCA_BIN it says so and the run goes on.
 *
 * The client is bench/acme-load.ts (raw RFC 8555 JWS over keep-alive HTTPS, in a child process):
 * ACME_CLIENTS accounts (default 16) per server in closed loops, one DNS name per order. After a
 * warm-up of each server (ACME_WARMUP_SECONDS, default 3), ACME_SECONDS (default 15) per server in
 * two halves, interleaved (PostgreSQL, PGlite, pebble, step-ca, and again): a neighbour's burst on a
 * shared machine hits all alike. An order whose request goes unanswered for ACME_STALL_SECONDS counts as
 * stalled, and a server that completes no order in a half is left out of the rest: the others' figures
 * are printed whatever one server does. Printed per server: orders/s, p50/p95/p99 per order, the mean
 * time per step, cores busy and CPU ms per order (server process, database, ACME client), stalled and
 * failed orders; for ours on PostgreSQL the SQL statements per order, in all and by request type
 * (bench/statement-counter.ts, counted in the server process); then the p50 per request type side by
 * side, the ratios ours / pebble (targets printed, never asserted: ≥ 1.2× on PostgreSQL, ≥ 0.75× on
 * PGlite), ours / step-ca and ours / pebble in orders/s and CPU per order, and, last, one line:
 *
 *   acme: <n> orders/s PostgreSQL, <n> orders/s PGlite, pebble <n> orders/s, p50 <n> ms, p95 <n> ms
 *
 * (p50/p95 of the PostgreSQL run, or of PGlite's when PostgreSQL is not measured). `ACME_MODE=router`
 * runs the older in-process mode instead (bench/acme-router.ts: the router mounted in this process
 * over HTTP, next to REST; ACME_QUERIES, ACME_PROFILE).
 *
 *   npm run bench:acme        ACME_CLIENTS=16 ACME_SECONDS=15 ACME_SERVERS=postgres,pglite,pebble,stepca
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
import { STEPCA_BIN, startStepCa } from './acme-stepca';
import { acmeSummaryLine, anchorRatioLine, pebbleRatioLine } from './acme-summary';
import { processCpuMs, processesCpuSince, processesCpuSnapshot } from './cpu';
import { startExampleServer, type ExampleServer } from './example-server';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';
import { countsSince, readStatementCounts, type StatementCounts } from './statement-counter';
import { makeTls } from './tls';

const CLIENTS = Number(process.env.ACME_CLIENTS ?? 16);
const ACME_SECONDS = Number(process.env.ACME_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.ACME_WARMUP_SECONDS ?? 3);
/** A request unanswered this long gives its order up as stalled (bench/acme-load.ts reads the same setting). */
const STALL_SECONDS = Number(process.env.ACME_STALL_SECONDS ?? 10);
/** Which servers to run (comma-separated): postgres, pglite, pebble, stepca. Default all four. */
const SERVERS = new Set((process.env.ACME_SERVERS ?? 'postgres,pglite,pebble,stepca').split(','));
/** Count ours' SQL statements on PostgreSQL (bench/statement-counter.ts); ACME_COUNT_STATEMENTS=0 leaves the server as it is. */
const COUNT_STATEMENTS = process.env.ACME_COUNT_STATEMENTS !== '0';
const PEBBLE = process.env.PEBBLE ?? '/usr/bin/pebble';
/** Where PGlite's directory (and the servers' logs and TLS files) go: on disk, not in memory. */
const DATA_PARENT = process.env.ACME_DATA_DIR ?? os.tmpdir();

type Key = 'postgres' | 'pglite' | 'pebble' | 'stepca';
const NAMES: Record<Key, string> = { postgres: 'PostgreSQL', pglite: 'PGlite', pebble: 'pebble', stepca: 'step-ca' };

/** A server under measurement: where its directory is, which process to charge. */
interface Target {
  key: Key;
  label: string;
  pid: number;
  directory: string;
  /** Where the server writes its SQL statement counts when asked (ours on PostgreSQL). */
  statementsFile?: string;
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
  /** SQL statements during the measured halves, where counted. */
  statements: StatementCounts | null;
  /** Why the server was left out of the later halves, if it was. */
  givenUp: string | null;
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
  const statementsFile = databaseUrl && COUNT_STATEMENTS ? path.join(dataDir, 'statements.json') : undefined;
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
        ...(statementsFile ? { BENCH_STATEMENT_COUNTS_FILE: statementsFile } : {}),
      },
      dataDir,
      statementsFile ? ['-r', path.join(__dirname, 'statement-counter.js')] : [],
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
    statementsFile,
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
  /** ms of CPU per order: server process + database (PostgreSQL's processes for ours on it; in process for the others). */
  cpuMsPerOrder: number;
  /** p50 ms and count per request type. */
  requests: Record<string, { p50: number; n: number }>;
}

/** SQL statements per order, in all and by the request type that issued them (server-side counts). */
function printStatements(counts: StatementCounts, orders: number): void {
  const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  const perOrder = (n: number) => (n / orders).toFixed(2);
  console.log(
    `  SQL statements sent to PostgreSQL, counted in the server process: ${perOrder(sum(counts.statements))} per order ` +
      `(${perOrder(sum(counts.transactionControl))} of them BEGIN/COMMIT/ROLLBACK/SAVEPOINT); by request type, per order | per request (requests):`,
  );
  const types = [
    'new-nonce',
    'new-account',
    'new-order',
    'authz',
    'challenge',
    'finalize',
    'order poll',
    'certificate',
    'directory',
    'other',
    '(none)',
  ];
  for (const type of types) {
    const [statements, requests] = [counts.statements[type] ?? 0, counts.requests[type] ?? 0];
    if (!statements && !requests) continue;
    const perRequest = requests ? (statements / requests).toFixed(2) : '-';
    console.log(`    ${type.padEnd(12)} ${perOrder(statements)} | ${perRequest} (${requests})`);
  }
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
  const perOrder = (ms: number) => (ms / orders).toFixed(1);
  // PostgreSQL's processes are the database of ours on it only; the others keep theirs in the server process.
  const database = target.key === 'postgres' ? cpu.postgres : 0;
  console.log(`\n== ${target.label}`);
  console.log(
    `ACME: ${fmt(ordersPerSecond)} orders/s (${CLIENTS} accounts, ${orders} orders in ${(cpu.wallMs / 1000).toFixed(1)} s); per order p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
  );
  console.log(`  mean ms per step: ${steps}`);
  console.log(
    `  ${(requests / orders).toFixed(2)} HTTPS requests per order (+ 1 http-01 fetch and DNS queries by the server), ${polls} polls; ` +
      `cores busy ${share(cpu.server + cpu.client + cpu.postgres)} of ${os.cpus().length} (server process ${share(cpu.server)}, ACME client ${share(cpu.client)}, PostgreSQL ${share(cpu.postgres)})`,
  );
  console.log(
    `  CPU ms per order: server process ${perOrder(cpu.server)}, database ${target.key === 'postgres' ? perOrder(database) : 'in the server process'}, ACME client ${perOrder(cpu.client)}`,
  );
  const stalled = runs.reduce((n, r) => n + r.stalled, 0);
  const failed = runs.reduce((n, r) => n + r.failed, 0);
  const firstError = runs.find((r) => r.firstError)?.firstError;
  if (stalled || failed || figures.givenUp) {
    console.log(
      `  NOT ALL ANSWERED: ${stalled} orders stalled (a request unanswered for ${STALL_SECONDS} s), ${failed} failed` +
        `${firstError ? ` (first: ${firstError.slice(0, 200)})` : ''}${figures.givenUp ? `; ${figures.givenUp}` : ''}`,
    );
  }
  if (figures.statements) printStatements(figures.statements, orders);
  const byType: Result['requests'] = {};
  for (const type of ACME_REQUESTS) {
    const all = [...registration[type], ...runs.flatMap((r) => r.requestMs[type])].sort((x, y) => x - y);
    byType[type] = { p50: percentile(all, 50), n: all.length };
  }
  return { ordersPerSecond, p50, p95, cpuMsPerOrder: (cpu.server + database) / orders, requests: byType };
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

const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0];

async function measureAll(targets: Target[], acme: AcmeLoader): Promise<Map<Key, Result>> {
  const figures = new Map<Key, Figures>();
  const live: Target[] = [];
  for (const t of targets) {
    try {
      const registration = await acme.accounts(t.directory, CLIENTS, t.key);
      figures.set(t.key, {
        runs: [],
        cpu: { wallMs: 0, server: 0, client: 0, postgres: 0 },
        registration,
        statements: null,
        givenUp: null,
      });
      await acme.run(WARMUP_SECONDS * 1000, t.key); // JIT of both processes, caches, the CA's signer, TLS sessions
      live.push(t);
    } catch (e) {
      figures.delete(t.key);
      console.log(`(${t.label} left out: its accounts or warm-up failed: ${firstLine(e)})`);
    }
  }
  for (let half = 0; half < 2; half++) {
    for (const t of live) {
      const f = figures.get(t.key)!;
      if (f.givenUp) continue;
      try {
        const before = t.statementsFile ? await readStatementCounts(t.pid, t.statementsFile) : null;
        const { value, cpu } = await measured(t.pid, acme.pid, () => acme.run((ACME_SECONDS * 1000) / 2, t.key));
        if (before) {
          const spent = countsSince(await readStatementCounts(t.pid, t.statementsFile!), before);
          f.statements = f.statements ? addCounts(f.statements, spent) : spent;
        }
        f.runs.push(value);
        for (const k of ['wallMs', 'server', 'client', 'postgres'] as const) f.cpu[k] += cpu[k];
        if (value.orders === 0 && value.stalled > 0) f.givenUp = `no order completed in half ${half + 1}: left out of the rest`;
      } catch (e) {
        f.givenUp = `half ${half + 1} failed (${firstLine(e)}): left out of the rest`;
      }
    }
  }
  const results = new Map<Key, Result>();
  for (const t of live) {
    const f = figures.get(t.key)!;
    if (f.runs.some((r) => r.orders > 0)) results.set(t.key, report(t, f));
    else console.log(`\n== ${t.label}\nno order completed (${f.givenUp ?? 'every order stalled or failed'})`);
  }
  return results;
}

function addCounts(a: StatementCounts, b: StatementCounts): StatementCounts {
  const plus = (x: Record<string, number>, y: Record<string, number>) => {
    const out = { ...x };
    for (const [k, n] of Object.entries(y)) out[k] = (out[k] ?? 0) + n;
    return out;
  };
  return {
    statements: plus(a.statements, b.statements),
    transactionControl: plus(a.transactionControl, b.transactionControl),
    requests: plus(a.requests, b.requests),
  };
}

function requestTable(results: Map<Key, Result>, keys: Key[]): void {
  console.log(
    `\np50 ms per request type, sent until the answer is read (count; new-nonce and new-account include the registration of the accounts before the warm-up): ${keys.map((k) => NAMES[k]).join(' | ')}`,
  );
  for (const type of ACME_REQUESTS) {
    const cells = keys.map((k) => {
      const r = results.get(k)!.requests[type];
      return r.n ? `${r.p50.toFixed(1)} (${r.n})` : '-';
    });
    console.log(`  ${type.padEnd(12)} ${cells.join(' | ')}`);
  }
}

/** step-ca beside the others, or why not. */
async function startStepCaTarget(workDir: string, tls: ReturnType<typeof makeTls>, setup: AcmeSetup): Promise<Target | null> {
  if (!STEPCA_BIN) {
    console.log('step-ca: not built (STEPCA_BIN unset), see docs/CONTRIBUTING.md "step-ca for bench:acme"');
    return null;
  }
  if (setup.port80 !== 'listening') {
    console.log(`step-ca left out: it validates http-01 on port 80, where the load client could not listen (${setup.port80})`);
    return null;
  }
  try {
    const ca = await startStepCa(STEPCA_BIN, path.join(workDir, 'step-ca'), tls, await freePort(), setup.dns);
    return { key: 'stepca', label: 'step-ca (BadgerDB v2 on disk, no fsync per write)', ...ca };
  } catch (e) {
    console.log(`step-ca left out: ${String((e as Error)?.message ?? e)}`);
    return null;
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
    const setup = await acme.setup(fs.readFileSync(tls.caFile, 'utf8'), SERVERS.has('stepca') && !!STEPCA_BIN);
    const pg = benchPostgresUrl();
    const body = async (pgUrl: string | null) => {
      if (pgUrl) targets.push(await startOurs('postgres', pgUrl, tls, setup));
      if (SERVERS.has('pglite')) targets.push(await startOurs('pglite', null, tls, setup));
      if (SERVERS.has('pebble')) {
        if (!fs.existsSync(PEBBLE)) console.log(`(pebble left out: ${PEBBLE} not found; Debian's package pebble, or set PEBBLE)`);
        else await startPebble(workDir, tls, setup).then(
          (t) => targets.push(t),
          (e: unknown) => console.log(`(pebble left out: ${String((e as Error)?.message ?? e)})`),
        ); // prettier-ignore
      }
      if (SERVERS.has('stepca')) {
        const stepCa = await startStepCaTarget(workDir, tls, setup);
        if (stepCa) targets.push(stepCa);
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
    (['postgres', 'pglite', 'pebble', 'stepca'] as const).filter((k) => results.has(k)),
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
  const figures = (k: Key) => ({ ordersPerSecond: rate(k), cpuMsPerOrder: results.get(k)?.cpuMsPerOrder ?? null });
  for (const ours of ['postgres', 'pglite'] as const) {
    if (!results.has(ours)) continue;
    for (const anchor of ['stepca', 'pebble'] as const)
      console.log(anchorRatioLine(NAMES[ours], figures(ours), NAMES[anchor], figures(anchor)));
  }
  if (results.has('stepca')) console.log("(step-ca's BadgerDB does not fsync each write by default; PostgreSQL with its defaults does)");
  console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
  console.log(acmeSummaryLine(summary));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
