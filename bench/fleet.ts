/**
 * A fleet on one PostgreSQL: 1, 2 and 3 instances of the example host server (each its own process,
 * the same database, the same EC P-256 intermediate CA), measured in one run:
 *
 *  1. issued certificates/s end to end (POST sign → order polled until `issued`), with the same total
 *     number of clients spread over the instances (load from separate processes, bench/load-client.ts)
 *     — more instances must not collapse throughput (on a 2-core machine they share the cores with the
 *     database and the clients, so they cannot add much either);
 *  2. p50 / p99 time from `POST …/sign/` to the order read back as `issued`, at light load (one client,
 *     sequential), through the first instance.
 *
 * Needs PostgreSQL: DATABASE_URL or TEST_DATABASE_URL as a postgres:// URL (a scratch schema is made
 * and dropped). CLIENTS (default 24), ORDERS per measurement (default 1500), LATENCY_SAMPLES (200),
 * ROUNDS (default 3: the sizes are measured 1-2-3 in each round, and medians reported).
 *
 *   npm run bench:fleet
 */
import { spawn, type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { processCpuMs, processesCpuMs } from './cpu';
import { benchCsrPem } from './csr';
import { RemoteLoader } from './load-client';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';

const CLIENTS = Number(process.env.CLIENTS ?? 24);
const ORDERS = Number(process.env.ORDERS ?? 1500);
const LATENCY_SAMPLES = Number(process.env.LATENCY_SAMPLES ?? 200);
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 3));
/** Fleet sizes measured in each round (FLEET_SIZES, default `1,2,3`; the first is the ratios' base). */
const SIZES = (process.env.FLEET_SIZES ?? '1,2,3').split(',').map(Number);
const SERVER = path.join(__dirname, '../examples/host-server/server.js');
/** Extra Node flags for the instances, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (FLEET_NODE_ARGS). */
const NODE_ARGS = (process.env.FLEET_NODE_ARGS ?? '').split(' ').filter(Boolean);

interface Instance {
  child: ChildProcess;
  apiRoot: string;
  /** `user:password` (what the load client takes). */
  credentials: string;
  caSerial: string;
}

/** Start one example server on `env`; resolves once it has printed its walk-through. */
function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, [...NODE_ARGS, SERVER], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`instance exited with ${code}:\n${out}`)));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('--- end ---')) return;
      const api = /^API='([^']+)'$/m.exec(out);
      const user = /username: (\S+)/.exec(out);
      const pass = /password: (\S+)/.exec(out);
      const ca = /^CA='([0-9A-F]+)'$/m.exec(out);
      if (!api || !user || !pass || !ca) return reject(new Error(`unexpected output:\n${out}`));
      child.removeAllListeners('exit');
      child.stdout?.removeAllListeners('data');
      resolve({ child, apiRoot: api[1], credentials: `${user[1]}:${pass[1]}`, caSerial: ca[1] });
    });
  });
}

/** ms of CPU spent so far by the instances, their load clients and PostgreSQL (every backend). */
interface FleetCpu {
  servers: number;
  clients: number;
  postgres: number;
}

function fleetCpu(instances: Instance[], loader: RemoteLoader): FleetCpu {
  const sum = (pids: (number | undefined)[]) => pids.reduce<number>((a, pid) => a + (pid === undefined ? 0 : processCpuMs(pid)), 0);
  return {
    servers: sum(instances.map((i) => i.child.pid)),
    clients: sum([loader.pid]),
    postgres: processesCpuMs('postgres'),
  };
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** One order through `instance`, from the sign request to the poll that sees it issued (ms). */
async function signToIssued(instance: Instance, csr: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const headers = { Authorization: `Basic ${Buffer.from(instance.credentials).toString('base64')}`, 'Content-Type': 'application/json' };
  const signed = await fetch(`${instance.apiRoot}/ca/${instance.caSerial}/sign/`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ csr, subject: [{ oid: 'CN', value: 'fleet.example.com' }] }),
  });
  if (signed.status !== 200) throw new Error(`sign: ${signed.status} ${await signed.text()}`);
  const { slug } = (await signed.json()) as { slug: string };
  for (let i = 0; i < 2000; i++) {
    const res = await fetch(`${instance.apiRoot}/ca/${instance.caSerial}/orders/${slug}/`, { headers });
    const order = (await res.json()) as { status: string; error?: string };
    if (order.status === 'issued') return Number(process.hrtime.bigint() - t0) / 1e6;
    if (order.status === 'failed') throw new Error(`order failed: ${order.error}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('order not issued');
}

async function main(): Promise<void> {
  const url = benchPostgresUrl();
  if (!url) {
    console.error('bench:fleet needs PostgreSQL: set DATABASE_URL (or TEST_DATABASE_URL) to a postgres:// URL');
    process.exit(2);
  }
  const csr = benchCsrPem();
  await withScratchSchema(url, async (scoped) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fleet-'));
    const env = { DATABASE_URL: scoped, CA_DATA_DIR: dataDir, CA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    const instances: Instance[] = [];
    const loader = new RemoteLoader().start();
    const rates = new Map<number, number[]>();
    const latencies = new Map<number, number[]>();
    try {
      // Rounds 1-2-3, 1-2-3, …: drift (a growing table, a warming cache) falls on every fleet size
      // alike, and each figure is a median over the rounds.
      for (let round = 0; round < ROUNDS; round++) {
        for (const n of SIZES) {
          while (instances.length < n) instances.push(await startInstance(env)); // the first makes the demo CAs
          const active = instances.slice(0, n);
          // Warm up every instance (password hash, CA key, JIT) with the load of the measurement, a
          // third as long, then the measurement.
          const job = (total: number) =>
            loader.run({
              kind: 'issue',
              targets: active.map((i) => ({ apiRoot: i.apiRoot, caSerial: i.caSerial, auth: i.credentials })),
              csr,
              total,
              clients: CLIENTS,
              pollMs: 20,
            });
          await job(Math.ceil(ORDERS / 3));
          const cpuBefore = fleetCpu(active, loader);
          const t0 = process.hrtime.bigint();
          // One load process for every fleet size: the same clients, spread over the instances (client
          // i talks to instance i mod n throughout), so the load's own CPU does not grow with the fleet.
          await job(ORDERS);
          const perSecond = ORDERS / (Number(process.hrtime.bigint() - t0) / 1e9);
          const cpuAfter = fleetCpu(active, loader);
          const perCert = (k: keyof FleetCpu) => (cpuAfter[k] - cpuBefore[k]) / ORDERS;
          const spent: FleetCpu = { servers: perCert('servers'), clients: perCert('clients'), postgres: perCert('postgres') };
          rates.set(n, [...(rates.get(n) ?? []), perSecond]);
          const light = latencies.get(n) ?? [];
          for (let i = 0; i < LATENCY_SAMPLES / ROUNDS; i++) light.push(await signToIssued(instances[0], csr));
          latencies.set(n, light);
          console.log(
            `round ${round + 1}: ${n} instance(s) ${perSecond.toFixed(0)} certificates/s; CPU per certificate: ` +
              `servers ${spent.servers.toFixed(2)} ms, load clients ${spent.clients.toFixed(2)} ms, PostgreSQL ${spent.postgres.toFixed(2)} ms`,
          );
        }
      }
      const single = percentile(rates.get(SIZES[0])!, 0.5);
      for (const n of SIZES) {
        const median = percentile(rates.get(n)!, 0.5);
        const light = latencies.get(n)!;
        console.log(
          `${n} instance(s): ${median.toFixed(0)} certificates/s (median of ${ROUNDS} rounds, ${CLIENTS} clients; ratio to ${SIZES[0]} instance(s) ${(median / single).toFixed(2)}), ` +
            `sign→issued at light load p50 ${percentile(light, 0.5).toFixed(1)} ms, p99 ${percentile(light, 0.99).toFixed(1)} ms`,
        );
      }
    } finally {
      loader.exit();
      for (const { child } of instances) child.kill('SIGTERM');
      await Promise.all(instances.map(({ child }) => new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)))));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
