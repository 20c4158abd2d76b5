/**
 * The example host server (examples/host-server, what `npm start` runs) as a child process of a
 * bench, with settings of its own: what users run, measured from outside. The bench runs the compiled
 * JavaScript (`npm run bench:*` compiles first), as a deployment does; `npm start` loads the same code
 * through ts-node's transpile-only hook, which costs at start-up only.
 *
 * Its output (the start-up lines, then one access-log line per request, docs/operations/logs.md) goes to a
 * file, as a deployment's log would: the bench reads the credentials, the CA and the ACME directory
 * from it, and on a failed start shows its tail.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const SERVER = path.join(__dirname, '../examples/host-server/server.js');
/** Extra Node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (BENCH_SERVER_NODE_ARGS): where its time goes. */
const NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

export interface ExampleServer {
  child: ChildProcess;
  pid: number;
  /** `https://localhost:port/django_ca/api` (or http://). */
  apiRoot: string;
  /** Serial of the demo intermediate CA (the one that issues, and takes ACME clients). */
  caSerial: string;
  /** `user:password` of the demo user. */
  auth: string;
  /** The ACME directory URL, with CA_ENABLE_ACME=true. */
  acmeDirectory: string | null;
  /** Where its output went. */
  logFile: string;
  /** SIGTERM, wait until it has stopped (order runner, database), remove its log. */
  stop(): Promise<void>;
}

/** Settings that would change what the bench measures if they leaked in from the bench's own environment. */
const NOT_INHERITED = [
  'DATABASE_URL',
  'PORT',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'CA_DATA_DIR',
  'CA_ENABLE_ACME',
  'CA_ACME_DNS_SERVERS',
  'CA_ACME_HTTP01_PORT',
  'CA_ORDER_RUNNER',
  'CA_WORKERS',
  'CA_WEBHOOKS',
  'CA_METRICS',
  'CA_KEY_ENCRYPTION_KEY',
];

/**
 * Start the example server with `env` (PORT=0 unless given; every setting in NOT_INHERITED comes from
 * `env` alone); resolves once it has printed its walk-through, i.e. its demo data exist and it listens.
 * `nodeArgs` are Node flags of this start (after BENCH_SERVER_NODE_ARGS), e.g. `-r` a bench's preload.
 */
export async function startExampleServer(
  env: Record<string, string>,
  logDir: string = os.tmpdir(),
  nodeArgs: string[] = [],
): Promise<ExampleServer> {
  const inherited = { ...process.env };
  for (const name of NOT_INHERITED) delete inherited[name];
  const folder = fs.mkdtempSync(path.join(logDir, 'example-server-log-'));
  const logFile = path.join(folder, 'server.log');
  const log = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [...NODE_ARGS, ...nodeArgs, SERVER], {
    env: { ...inherited, PORT: '0', ...env },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const halt = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const stop = async () => {
    await halt();
    fs.rmSync(folder, { recursive: true, force: true });
  };
  const started = Date.now();
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const out = fs.readFileSync(logFile, 'utf8');
    if (out.includes('--- end ---')) {
      const api = /^API='([^']+)'$/m.exec(out);
      const user = /^ {2}username: (\S+)$/m.exec(out);
      const pass = /^ {2}password: (\S+)$/m.exec(out);
      const ca = /^CA='([0-9A-F]+)'$/m.exec(out);
      const acme = /^ACME directory: (\S+)$/m.exec(out);
      if (!api || !user || !pass || !ca) {
        await halt(); // the log stays, for the error's reader
        throw new Error(`the example server printed what the bench did not expect (${logFile}):\n${out.slice(-2000)}`);
      }
      return {
        child,
        pid: child.pid!,
        apiRoot: api[1],
        caSerial: ca[1],
        auth: `${user[1]}:${pass[1]}`,
        acmeDirectory: acme?.[1] ?? null,
        logFile,
        stop,
      };
    }
    if (exitCode !== undefined || Date.now() - started > 60_000) {
      await halt();
      throw new Error(`the example server did not start (exit ${exitCode ?? 'none, 60 s'}; ${logFile}):\n${out.slice(-2000)}`);
    }
  }
}
