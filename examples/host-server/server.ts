/**
 * Example host application: an Express app that embeds the CA API.
 *
 *   npm start                       # http://127.0.0.1:8000, data in ./.ca-data
 *   PORT=9000 DATABASE_URL=postgres://... npm start
 *
 * On first start against a database it creates a root CA, an API-enabled intermediate CA and an API
 * user with every permission, and prints the credentials and a curl + openssl walk-through.
 * Restarting keeps the data (the embedded PGlite database lives in ./.ca-data unless DATABASE_URL
 * says otherwise).
 *
 * Environment: PORT (default 8000; 0 = any free port), DATABASE_URL, CA_DATA_DIR (default ./.ca-data:
 * the development key-encryption key, and per database the demo password and root.pem — see
 * demo-data.ts), CA_KEY_ENCRYPTION_KEY (base64 of 32 bytes; without it a development key is generated
 * and kept in the data directory), CA_ORDER_RUNNER=off (accept orders but leave them to another
 * process), TLS_CERT_FILE + TLS_KEY_FILE (serve HTTPS), TRUST_PROXY (Express's `trust proxy`),
 * CA_ENABLE_ACME (the router's switch; here also: the demo intermediate takes ACME clients),
 * CA_METRICS=true (Prometheus metrics at /metrics), CA_WEBHOOKS=true (webhook delivery; endpoints
 * added with ca-admin add_webhook), and the settings ca-admin reads (CA_URL_PATH, CA_PROFILES,
 * CA_DEFAULT_PROFILE, CA_DEFAULT_EXPIRES, CA_DEFAULT_CA), each read by lib/settings as ca-admin reads it,
 * CA_HSM_LIBRARY_PATH + CA_HSM_TOKEN + CA_HSM_USER_PIN (adds the PKCS#11 key backend `hsm`, as
 * ca-admin does: CAs made with `init_ca --key-backend hsm` sign here; docs/operations/hsm.md).
 * CA_WORKERS (PostgreSQL: `auto` or a number of processes serving one port; cluster.ts), CA_ACCESS_LOG
 * (default: JSON lines in access.log of the data directory; `stdout`: on the console; `off`; logs.ts).
 */
import cluster from 'cluster';
import type { CaRecord, KeyBackend, Store } from '../../lib';
import { runClusterPrimary, runClusterWorker, workerCount } from './cluster';
import type { DemoCredentials } from './demo-data';
import { announceHost, openHost, serveHost, stopOnSignals, type HostServerOptions, type ServingHost } from './host';
import { walkThrough } from './walk-through';

export { walkThrough, type DemoCredentials, type HostServerOptions };

export interface HostServer {
  url: string;
  apiRoot: string;
  port: number;
  store: Store;
  keyBackends: Record<string, KeyBackend>;
  intermediate: CaRecord;
  root: CaRecord;
  /** null when the database has a demo user whose password the data directory does not know. */
  credentials: DemoCredentials | null;
  close(): Promise<void>;
}

export async function startHostServer(options: HostServerOptions = {}): Promise<HostServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const host = await openHost(options, log);
  let serving: ServingHost;
  try {
    serving = await serveHost(host, options, log);
  } catch (e) {
    await host.close();
    throw e;
  }
  const { url } = serving;
  const { apiRoot, port, root, intermediate, credentials, acmeDirectoryPath } = await announceHost(host, url, options, log);
  if (acmeDirectoryPath) serving.setAcmeDirectoryPath(acmeDirectoryPath);
  return {
    url,
    apiRoot,
    port,
    store: host.store,
    keyBackends: host.keyBackends,
    root,
    intermediate,
    credentials,
    close: async () => {
      await serving.close();
      await host.close();
    },
  };
}

/** `npm start`: one process, or with CA_WORKERS a cluster of them (cluster.ts). */
async function main(): Promise<void> {
  if (cluster.isWorker) return runClusterWorker();
  const workers = workerCount(process.env);
  if (workers > 1) return runClusterPrimary(workers);
  const server = await startHostServer();
  stopOnSignals(() => server.close());
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
