/**
 * The steps of one example-server process (server.ts runs them in one process; cluster.ts runs the
 * first and last in the primary and the middle one in every worker): open (settings, database, keys),
 * serve (the router mounted, listening), announce (demo data, what the server prints about itself).
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import express, { type Express } from 'express';
import {
  createCaApiRouter,
  createCaAdminRouter,
  answerBackupRequests,
  defaultKeyBackend,
  developmentKekPath,
  jsonLinesLogger,
  knexStore,
  readSettings,
  pkcs11KeyBackend,
  openDatabase,
  type KeyBackend,
  type OrderRunner,
  type Store,
  type WebhookOptions,
} from '../../lib';
import { demoFolder, ensureDemoData, INTERMEDIATE_NAME } from './demo-data';
import { applyTrustProxy, listen, tlsCredentials, trustProxySetting } from './listen';
import { accessLogLine, accessLogSetting, hostLogger } from './logs';
import { operatingLines, optionalModules } from './operating';
import { signUrlWarning } from './sign-url-check';
import { acmeWalkThrough, walkThrough } from './walk-through';

export interface HostServerOptions {
  dataDir?: string;
  databaseUrl?: string;
  port?: number;
  keyEncryptionKey?: string;
  /** Accept orders without processing them (for tests of recovery, or an API-only instance). */
  holdOrders?: boolean;
  /** Webhook delivery (docs/operations/webhooks.md), e.g. `{ enabled: true }`; secrets sealed under the key-encryption key. */
  webhooks?: WebhookOptions;
  log?: (line: string) => void;
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

/** What one process of the example server opens before it serves: settings, database, keys. */
export interface OpenedHost {
  settings: ReturnType<typeof readSettings>;
  /** The Express app the router is mounted on (`trust proxy` set). */
  app: Express;
  dataDir: string;
  databaseUrl: string;
  folder: string;
  tls: ReturnType<typeof tlsCredentials>;
  store: Store;
  keyBackends: Record<string, KeyBackend>;
  kek: string;
  /** Closes the HSM session (if any) and the database. */
  close(): Promise<void>;
}

/**
 * Settings, database (migrated), key-encryption key and key backends. Every setting is read before
 * anything is opened or written: a mistake ends the start cleanly.
 */
export async function openHost(options: HostServerOptions, log: (line: string) => void): Promise<OpenedHost> {
  // The settings ca-admin reads, read the same way (lib/settings): one environment, one meaning.
  const settings = readSettings(process.env);
  const dataDir = path.resolve(options.dataDir ?? settings.dataDir);
  const databaseUrl = options.databaseUrl ?? settings.databaseUrl ?? dataDir;
  const tls = tlsCredentials(process.env.TLS_CERT_FILE, process.env.TLS_KEY_FILE);
  const app = express();
  // Express names itself on every answer unless told not to: that tells a scanner what to try and a
  // client nothing (docs/guides/embedding.md "What the router needs": the router cannot turn it off for the app).
  app.disable('x-powered-by');
  applyTrustProxy(app, process.env.TRUST_PROXY); // Express checks it now: a bad value ends the start here
  const folder = demoFolder(dataDir, databaseUrl);

  // Creates the PGlite directory on first use, private to this user (docs/guides/getting-started.md); warns
  // through the log about an existing one that others may enter.
  const db = await openDatabase(databaseUrl, { warn: log });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // the key-encryption key lives here
  const store = knexStore(db);
  await store.migrate();
  // `ca-admin backup FILE` while this process holds the embedded database: it asks, this process
  // dumps it between two statements (docs/operations/backup-restore.md). Nothing for PostgreSQL.
  const backups = answerBackupRequests(db, { log });
  const kek = keyEncryptionKey(dataDir, options.keyEncryptionKey ?? process.env.CA_KEY_ENCRYPTION_KEY, log);
  const keyBackends: Record<string, KeyBackend> = { default: defaultKeyBackend({ keyEncryptionKey: kek }) };
  // The HSM settings ca-admin reads (lib/settings): CAs made with `init_ca --key-backend hsm` sign here.
  const { library, token, pin, alias } = settings.hsm;
  const hsm = library ? pkcs11KeyBackend({ library, token: token ?? '', pin: pin ?? '', ...(alias ? { alias } : {}) }) : null;
  if (hsm) keyBackends[hsm.alias] = hsm;
  return {
    settings,
    app,
    dataDir,
    databaseUrl,
    folder,
    tls,
    store,
    keyBackends,
    kek,
    close: async () => {
      backups.close();
      hsm?.close();
      await store.close();
    },
  };
}

/** An opened host that serves: the router mounted, listening. */
export interface ServingHost {
  url: string;
  /** Shown on `/` once the demo intermediate takes ACME clients. */
  setAcmeDirectoryPath(path: string): void;
  /** Stops listening, then the router (order runner, background work). */
  close(): Promise<void>;
}

/** Mount the router on an Express app and listen (PORT; in a cluster worker, the port all workers share). */
export async function serveHost(host: OpenedHost, options: HostServerOptions, log: (line: string) => void): Promise<ServingHost> {
  const { settings, app } = host;
  const accessLog = accessLogSetting(process.env.CA_ACCESS_LOG, host.dataDir);
  const logs = hostLogger(accessLog, log);
  const router = createCaApiRouter({
    rest: { enabled: true },
    store: host.store,
    keyBackends: host.keyBackends,
    // One JSON line per request (docs/operations/logs.md), in access.log of the data directory, away from the
    // console (logs.ts); CA_ACCESS_LOG=stdout puts it on the console, off silences it.
    accessLog: accessLog.kind !== 'off',
    logger: logs.logger,
    ...((options.holdOrders ?? process.env.CA_ORDER_RUNNER === 'off') ? { orderRunner: holdingRunner } : {}),
    ...optionalModules(options.webhooks, settings, host.kek),
    // EST (CA_ENABLE_EST) enrols with the demo intermediate, unless CA_DEFAULT_CA names another CA;
    // at the label `approval`, new enrolments wait for an operator (ca-admin approve_enrolment_request).
    est: {
      ca: settings.defaultCa ?? INTERMEDIATE_NAME,
      labels: { approval: { ca: settings.defaultCa ?? INTERMEDIATE_NAME, approval: true } },
    },
    // SCEP (CA_ENABLE_SCEP) too; its challenge password is CA_SCEP_CHALLENGE, read by the router (and
    // given to the label `approval` here).
    scep: {
      ca: settings.defaultCa ?? INTERMEDIATE_NAME,
      labels: {
        approval: { ca: settings.defaultCa ?? INTERMEDIATE_NAME, approval: true, challenge: settings.scepChallenge ?? undefined },
      },
    },
  });
  app.use(router);
  // The admin web interface (docs/guides/admin-interface.md) under /admin/, for the same users.
  const admin = createCaAdminRouter({
    store: host.store,
    keyBackends: host.keyBackends,
    // Webhook secrets are sealed under the same key-encryption key as the CA keys.
    env: { ...process.env, CA_KEY_ENCRYPTION_KEY: host.kek },
    logger: jsonLinesLogger({ stream: { write: (line: string) => log(line.trimEnd()) } }),
  });
  app.use(admin);
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
    listening = await listen(app, options.port ?? Number(process.env.PORT ?? 8000), host.tls);
  } catch (e) {
    await router.close();
    await logs.close();
    throw e;
  }
  const { server, url } = listening;
  return {
    url,
    setAcmeDirectoryPath: (p) => (acmeDirectoryPath = p),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await router.close();
      await admin.close();
      await logs.close();
    },
  };
}

/**
 * The demo data (created on first start against a database) and what the server prints about itself:
 * where it listens, the credentials, the walk-through. `url` is where the server (or the cluster's
 * workers) listens.
 */
export async function announceHost(host: OpenedHost, url: string, options: HostServerOptions, log: (line: string) => void) {
  const { settings, databaseUrl, dataDir, folder, tls } = host;
  const port = Number(new URL(url).port);
  const apiRoot = `${url}/${settings.urlPath}api`;
  const acme = settings.enableAcme;
  const demo = await ensureDemoData({
    store: host.store,
    keyBackends: host.keyBackends,
    dataDir,
    folder,
    hostname: `localhost:${port}`,
    urlPath: settings.urlPath,
    acme,
  });
  const { root, intermediate, credentials } = demo;
  const acmeDirectoryPath = acme ? `/${settings.urlPath}acme/directory/${intermediate.serial}/` : null;

  log(`express-ca-api example listening on ${url}`);
  log(accessLogLine(accessLogSetting(process.env.CA_ACCESS_LOG, dataDir)));
  log(`API docs: ${apiRoot}/docs/`);
  log(`Admin interface: ${url}/admin/ (sign in as the API user below)`);
  if (demo.created.length) log(`Created in this database: ${demo.created.join(', ')}.`);
  for (const line of signUrlWarning([intermediate, root], `localhost:${port}`, databaseUrl, tls !== null)) log(line);
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
    log('  CA_DATA_DIR. Start with that one, or make a user of your own: ca-admin create_api_user NAME --all-permissions --use-admin.');
  }
  if (acmeDirectoryPath) {
    // The router has checked CA_ACME_HTTP01_PORT by now (docs/guides/acme.md): the port the clients must answer on.
    const http01Port = Number(process.env.CA_ACME_HTTP01_PORT?.trim() || 80);
    log(acmeWalkThrough({ directory: `${url}${acmeDirectoryPath}`, https: tls !== null, http01Port }));
  }
  // The router has read CA_ENABLE_EST as the settings do.
  if (settings.enableEst) {
    log(`EST (CA_ENABLE_EST; docs/guides/est.md): ${url}/.well-known/est/ enrols with ${settings.defaultCa ?? INTERMEDIATE_NAME}.`);
    log(`  ${url}/.well-known/est/approval/: new enrolments wait for ca-admin approve_enrolment_request (docs/guides/est.md).`);
  }
  const forwardedCertHeader = settings.estClientCertHeader;
  if (settings.enableEst && forwardedCertHeader) {
    // The router reads the header only from peers `trust proxy` trusts: without TRUST_PROXY, never.
    log(
      trustProxySetting(process.env.TRUST_PROXY) // false, 0 or unset: no proxy is trusted
        ? `EST: simplereenroll also takes the client certificate a proxy trusted by TRUST_PROXY forwards in ${forwardedCertHeader}.`
        : `EST: CA_EST_CLIENT_CERT_HEADER is set but TRUST_PROXY trusts no proxy, so ${forwardedCertHeader} is never read.`,
    );
  }
  if (settings.enableScep) {
    const challenge = settings.scepChallenge
      ? 'with the challenge password of CA_SCEP_CHALLENGE'
      : 'with one-time challenges only (ca-admin create_enrolment_challenge scep): CA_SCEP_CHALLENGE is not set';
    log(
      `SCEP (CA_ENABLE_SCEP; docs/guides/scep.md): ${url}/${settings.urlPath}scep enrols with ${settings.defaultCa ?? INTERMEDIATE_NAME}, ${challenge}.`,
    );
    log(`  ${url}/${settings.urlPath}scep/approval: new enrolments wait for ca-admin approve_enrolment_request (docs/guides/scep.md).`);
  }
  if (tls) {
    log('');
    log("HTTPS: curl must trust the server's certificate (export CURL_CA_BUNDLE=its-ca.pem); the CRL, OCSP and");
    log('CA-issuer URLs in the certificates are http:// on this port, which speaks TLS: steps 6-7 need them served over HTTP.');
  }
  if (credentials) log(walkThrough(apiRoot, credentials, intermediate.serial, demo.rootPem, root.serial));
  return { apiRoot, port, root, intermediate, credentials, acmeDirectoryPath };
}

/**
 * On SIGINT (Ctrl-C) or SIGTERM: say so (when `say`), run `close` once, exit 0 (1 if it failed).
 * A cluster worker stops quietly: its primary speaks for the server.
 */
export function stopOnSignals(close: () => Promise<void>, say = true): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (say) console.log(`${signal}: stopping (order runner, database)…`);
    close().then(
      () => {
        if (say) console.log('stopped.');
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
