/**
 * Example host application: an Express app that embeds the CA API.
 *
 *   npm start                       # http://localhost:8000, data in ./.ca-data
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
 * ca-admin does: CAs made with `init_ca --key-backend hsm` sign here; README "Keys in an HSM").
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import express from 'express';
import {
  createCaApiRouter,
  defaultKeyBackend,
  developmentKekPath,
  jsonLinesLogger,
  knexStore,
  readSettings,
  pkcs11KeyBackend,
  openDatabase,
  type CaRecord,
  type KeyBackend,
  type OrderRunner,
  type Store,
  type WebhookOptions,
} from '../../lib';
import { demoFolder, ensureDemoData, type DemoCredentials } from './demo-data';
import { applyTrustProxy, listen, tlsCredentials } from './listen';
import { operatingLines, optionalModules } from './operating';
import { signUrlWarning } from './sign-url-check';
import { acmeWalkThrough, walkThrough } from './walk-through';

export { walkThrough, type DemoCredentials };

export interface HostServerOptions {
  dataDir?: string;
  databaseUrl?: string;
  port?: number;
  keyEncryptionKey?: string;
  /** Accept orders without processing them (for tests of recovery, or an API-only instance). */
  holdOrders?: boolean;
  /** Webhook delivery (README "Webhooks"), e.g. `{ enabled: true }`; secrets sealed under the key-encryption key. */
  webhooks?: WebhookOptions;
  log?: (line: string) => void;
}

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

/** The KEK from the environment, else a development key kept in the data directory. */
function keyEncryptionKey(dataDir: string, given: string | undefined, log: (line: string) => void): string {
  if (given) return given;
  const file = developmentKekPath(dataDir);
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    log(`CA_KEY_ENCRYPTION_KEY is not set: generated a development key-encryption key in ${file}.`);
  } else {
    log(`CA_KEY_ENCRYPTION_KEY is not set: using the development key-encryption key in ${file}.`);
  }
  log('  Do not use it in production: set CA_KEY_ENCRYPTION_KEY (openssl rand -base64 32) and keep it safe.');
  return fs.readFileSync(file, 'utf8').trim();
}

/** A runner that accepts orders and does nothing: they stay pending for another process. */
const holdingRunner: OrderRunner = { start: async () => undefined, stop: async () => undefined, notify: () => undefined };

export async function startHostServer(options: HostServerOptions = {}): Promise<HostServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  // Every setting is read before anything is opened or written: a mistake ends the start cleanly.
  // The settings ca-admin reads, read the same way (lib/settings): one environment, one meaning.
  const settings = readSettings(process.env);
  const dataDir = path.resolve(options.dataDir ?? settings.dataDir);
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL ?? dataDir;
  const requestedPort = options.port ?? Number(process.env.PORT ?? 8000);
  const tls = tlsCredentials(process.env.TLS_CERT_FILE, process.env.TLS_KEY_FILE);
  const acme = settings.enableAcme;
  const app = express();
  applyTrustProxy(app, process.env.TRUST_PROXY);
  const folder = demoFolder(dataDir, databaseUrl);

  // Creates the PGlite directory on first use, private to this user (README "The two commands"); warns
  // through the log about an existing one that others may enter.
  const db = await openDatabase(databaseUrl, { warn: log });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // the key-encryption key lives here
  const store = knexStore(db);
  await store.migrate();
  const kek = keyEncryptionKey(dataDir, options.keyEncryptionKey ?? process.env.CA_KEY_ENCRYPTION_KEY, log);
  const keyBackends: Record<string, KeyBackend> = { default: defaultKeyBackend({ keyEncryptionKey: kek }) };
  const hsmEnv = process.env;
  const hsm = hsmEnv.CA_HSM_LIBRARY_PATH
    ? pkcs11KeyBackend({ library: hsmEnv.CA_HSM_LIBRARY_PATH, token: hsmEnv.CA_HSM_TOKEN ?? '', pin: hsmEnv.CA_HSM_USER_PIN ?? '' })
    : null;
  if (hsm) keyBackends.hsm = hsm;

  const router = createCaApiRouter({
    rest: { enabled: true },
    store,
    keyBackends,
    // One JSON line per request (README "Logs"), through the example's own output; CA_ACCESS_LOG=off silences it.
    accessLog: process.env.CA_ACCESS_LOG !== 'off',
    logger: jsonLinesLogger({ stream: { write: (line: string) => log(line.trimEnd()) } }),
    ...((options.holdOrders ?? process.env.CA_ORDER_RUNNER === 'off') ? { orderRunner: holdingRunner } : {}),
    ...optionalModules(options.webhooks, settings, kek),
  });
  app.use(router);
  let acmeDirectoryPath: string | null = null;
  // Absolute URLs from the request, as the API's clients see them: behind a proxy (TRUST_PROXY) its
  // X-Forwarded-Proto and X-Forwarded-Host.
  app.get('/', (req, res) => {
    const base = `${req.protocol}://${req.host}`;
    const lines = [
      'express-ca-api example host.',
      `REST API: ${base}/${settings.urlPath}api/ (docs: ${base}/${settings.urlPath}api/docs/)`,
      ...(acmeDirectoryPath ? [`ACME directory: ${base}${acmeDirectoryPath}`] : []),
    ];
    res.type('text/plain').send(lines.join('\n') + '\n');
  });

  let listening: Awaited<ReturnType<typeof listen>>;
  try {
    listening = await listen(app, requestedPort, tls);
  } catch (e) {
    await router.close();
    hsm?.close();
    await store.close();
    throw e;
  }
  const { server, url } = listening;
  const port = Number(new URL(url).port);
  const apiRoot = `${url}/${settings.urlPath}api`;
  const demo = await ensureDemoData({
    store,
    keyBackends,
    dataDir,
    folder,
    hostname: `localhost:${port}`,
    urlPath: settings.urlPath,
    acme,
  });
  const { root, intermediate, credentials } = demo;
  if (acme) acmeDirectoryPath = `/${settings.urlPath}acme/directory/${intermediate.serial}/`;

  log(`express-ca-api example listening on ${url}`);
  log(`API docs: ${apiRoot}/docs/`);
  if (demo.created.length) log(`Created in this database: ${demo.created.join(', ')}.`);
  for (const line of signUrlWarning([intermediate, root], `localhost:${port}`, databaseUrl)) log(line);
  if (folder !== dataDir) log(`Kept for this database (demo password, root.pem): ${folder}`);
  const devKekFile = (options.keyEncryptionKey ?? process.env.CA_KEY_ENCRYPTION_KEY) ? null : developmentKekPath(dataDir);
  const webhooks = options.webhooks?.enabled ?? settings.webhooks;
  for (const line of operatingLines({ url, webhooks, metrics: settings.metrics, databaseUrl, devKekFile })) log(line);
  if (credentials) {
    log('API user:');
    log(`  username: ${credentials.username}`);
    log(`  password: ${credentials.password}`);
  } else {
    log(`API user: demo exists in this database, but its password is not kept in ${folder}: it was made with another`);
    log('  CA_DATA_DIR. Start with that one, or make a user of your own: ca-admin create_api_user NAME.');
  }
  if (acmeDirectoryPath) {
    // The router has checked CA_ACME_HTTP01_PORT by now (README "ACME"): the port the clients must answer on.
    const http01Port = Number(process.env.CA_ACME_HTTP01_PORT?.trim() || 80);
    log(acmeWalkThrough({ directory: `${url}${acmeDirectoryPath}`, https: tls !== null, http01Port }));
  }
  if (tls) {
    log('');
    log("HTTPS: curl must trust the server's certificate (export CURL_CA_BUNDLE=its-ca.pem); the CRL, OCSP and");
    log('CA-issuer URLs in the certificates are http:// on this port, which speaks TLS: steps 6-7 need them served over HTTP.');
  }
  if (credentials) log(walkThrough(apiRoot, credentials, intermediate.serial, demo.rootPem, root.serial));

  return {
    url,
    apiRoot,
    port,
    store,
    keyBackends,
    root,
    intermediate,
    credentials,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await router.close();
      hsm?.close();
      await store.close();
    },
  };
}

if (require.main === module) {
  startHostServer().then(
    (server) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        console.log(`${signal}: stopping (order runner, database)…`);
        server.close().then(
          () => {
            console.log('stopped.');
            process.exit(0);
          },
          () => process.exit(1),
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
