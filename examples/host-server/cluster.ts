/**
 * The example server on several processes (CA_WORKERS; docs/guides/getting-started.md "Several cores").
 * One Node process runs one event loop, so a server alone keeps one core busy however many
 * the machine has; Node's cluster module lets several processes accept connections on one port.
 *
 * The primary opens the database (migrations), the key-encryption key and the demo data, prints what
 * a single server prints, and stops and replaces workers; it serves no request. Every worker mounts
 * the router on the shared port with its own connection pool, order runner and background work: the
 * instances of a fleet (docs/operations/several-instances.md), which is why it takes PostgreSQL — an embedded
 * database serves one process at a time.
 */
import cluster, { type Worker } from 'cluster';
import * as os from 'os';
import * as path from 'path';
import { parseDatabaseUrl, readSettings } from '../../lib';
import { announceHost, openHost, serveHost, stopOnSignals, type ServingHost } from './host';

/** A message from the primary to its workers: what `/` shows once the demo data exist. */
interface AcmePathMessage {
  acmeDirectoryPath: string;
}

const MAX_WORKERS = 64;
const REPLACE_AFTER_MS = 1000;

/**
 * How many processes CA_WORKERS asks for: unset or 1, one (no cluster); `auto`, one per core on
 * PostgreSQL and one on the embedded database; else a number from 1 to 64, more than one only on
 * PostgreSQL.
 */
export function workerCount(env: NodeJS.ProcessEnv): number {
  const raw = env.CA_WORKERS?.trim();
  if (!raw) return 1;
  const settings = readSettings(env);
  const database = parseDatabaseUrl(settings.databaseUrl ?? path.resolve(settings.dataDir));
  const shared = database.kind === 'postgres';
  const count = raw === 'auto' ? (shared ? os.availableParallelism() : 1) : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS) {
    throw new Error(
      `CA_WORKERS=${raw}: give a number of processes from 1 to ${MAX_WORKERS}, or auto (one per core: ${os.availableParallelism()} here).`,
    );
  }
  if (count > 1 && !shared) {
    throw new Error(
      `CA_WORKERS=${raw}: several processes need PostgreSQL (DATABASE_URL=postgres://…); the embedded database serves one process at a time.`,
    );
  }
  if (count > 1 && settings.metrics) {
    // Each worker would answer a scrape with its own counters: a scrape would see one at random.
    throw new Error(`CA_WORKERS=${raw} with CA_METRICS=true: metrics are per process; run one process per port to scrape each.`);
  }
  return count;
}

/** The primary: prepare, start `count` workers, announce once they listen, replace any that dies. */
export async function runClusterPrimary(count: number): Promise<void> {
  const log = (line: string) => console.log(line);
  const host = await openHost({}, log);
  let stopping = false;
  let listened = false;
  let acme: AcmePathMessage | null = null;
  const tellPath = (worker: Worker) => {
    if (acme) worker.send(acme);
  };
  const firstListening = new Promise<number>((resolve, reject) => {
    cluster.once('listening', (_worker, address) => {
      listened = true;
      resolve(address.port);
    });
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return;
      if (!listened) {
        // A worker that cannot start (a bad setting, a busy port) ends the start, as a single server's would.
        reject(new Error(`a worker (process ${worker.process.pid}) ended before the server listened: exit ${code ?? signal}`));
        return;
      }
      // After a pause, so that a worker that cannot start (the database gone) is not restarted in a tight loop.
      log(`worker process ${worker.process.pid} ended (${code ?? signal}); starting another.`);
      setTimeout(() => stopping || cluster.fork(), REPLACE_AFTER_MS).unref();
    });
  });
  // A worker that listens learns the ACME path (if the demo data exist by then; else from the broadcast below).
  cluster.on('listening', (worker) => tellPath(worker));
  for (let i = 0; i < count; i++) cluster.fork();
  const stopWorkers = async () => {
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    await Promise.all(
      running.map(
        (w) =>
          new Promise<void>((resolve) => {
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
  };
  let port: number;
  try {
    port = await firstListening;
  } catch (e) {
    await stopWorkers();
    await host.close();
    throw e;
  }
  const url = `${host.tls ? 'https' : 'http'}://127.0.0.1:${port}`; // where the workers listen (listen.ts)
  log(`${count} worker processes (CA_WORKERS), each with its own connection pool and order runner.`);
  const announced = await announceHost(host, url, {}, log);
  if (announced.acmeDirectoryPath) acme = { acmeDirectoryPath: announced.acmeDirectoryPath };
  for (const worker of Object.values(cluster.workers ?? {})) if (worker) tellPath(worker);
  stopOnSignals(async () => {
    await stopWorkers();
    await host.close();
  });
}

/** A worker: open quietly (the primary has said what there is to say), serve, stop on a signal. */
export async function runClusterWorker(): Promise<void> {
  const log = (line: string) => console.log(line);
  let serving: ServingHost | null = null;
  let acmeDirectoryPath: string | null = null;
  // Listening from the start: the primary may tell the path while this worker still opens.
  process.on('message', (message: Partial<AcmePathMessage>) => {
    if (!message.acmeDirectoryPath) return;
    acmeDirectoryPath = message.acmeDirectoryPath;
    serving?.setAcmeDirectoryPath(acmeDirectoryPath);
  });
  const host = await openHost({}, () => undefined);
  const started = await serveHost(host, {}, log);
  serving = started;
  if (acmeDirectoryPath) started.setAcmeDirectoryPath(acmeDirectoryPath);
  stopOnSignals(async () => {
    await started.close();
    await host.close();
  }, false);
}
