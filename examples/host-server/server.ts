/**
 * Example host application: an Express app that embeds the CA API.
 *
 *   npm start                       # http://localhost:8000, data in ./.ca-data
 *   PORT=9000 DATABASE_URL=postgres://... npm start
 *
 * On first start it creates a root CA, an API-enabled intermediate CA and an API user with every
 * permission, and prints the credentials and a curl + openssl walk-through. Restarting keeps the data
 * (the embedded PGlite database lives in ./.ca-data unless DATABASE_URL says otherwise).
 *
 * Environment: PORT (default 8000; 0 = any free port), DATABASE_URL, CA_DATA_DIR (default
 * ./.ca-data: development key-encryption key, demo credentials, root.pem), CA_KEY_ENCRYPTION_KEY
 * (base64 of 32 bytes; without it a development key is generated and kept in the data directory),
 * CA_ORDER_RUNNER=off (accept orders but leave them to another process).
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import type { AddressInfo } from 'net';
import * as path from 'path';
import express from 'express';
import {
  answerClientErrorsAsJson,
  createApiUser,
  createCaApiRouter,
  defaultKeyBackend,
  initCa,
  knexStore,
  openDatabase,
  type CaRecord,
  type KeyBackend,
  type OrderRunner,
  type Store,
} from '../../lib';

export interface HostServerOptions {
  dataDir?: string;
  databaseUrl?: string;
  port?: number;
  keyEncryptionKey?: string;
  /** Accept orders without processing them (for tests of recovery, or an API-only instance). */
  holdOrders?: boolean;
  log?: (line: string) => void;
}

export interface DemoCredentials {
  username: string;
  password: string;
}

export interface HostServer {
  url: string;
  apiRoot: string;
  port: number;
  store: Store;
  keyBackends: Record<string, KeyBackend>;
  intermediate: CaRecord;
  root: CaRecord;
  credentials: DemoCredentials;
  close(): Promise<void>;
}

const ROOT_NAME = 'Example Root';
const INTERMEDIATE_NAME = 'Example Intermediate';

/** The KEK from the environment, else a development key kept in the data directory. */
function keyEncryptionKey(dataDir: string, given: string | undefined, log: (line: string) => void): string {
  if (given) return given;
  const file = path.join(dataDir, 'dev-key-encryption-key');
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    log(`CA_KEY_ENCRYPTION_KEY is not set: generated a development key-encryption key in ${file}.`);
  } else {
    log(`CA_KEY_ENCRYPTION_KEY is not set: using the development key-encryption key in ${file}.`);
  }
  log('  Do not use it in production: set CA_KEY_ENCRYPTION_KEY (openssl rand -base64 32) and keep it safe.');
  return fs.readFileSync(file, 'utf8').trim();
}

/** Root + API-enabled intermediate + an API user, created once. */
async function ensureDemoData(
  store: Store,
  keyBackends: Parameters<typeof initCa>[0]['keyBackends'],
  dataDir: string,
  hostname: string,
): Promise<{ root: CaRecord; intermediate: CaRecord; credentials: DemoCredentials; created: boolean }> {
  const credentialsFile = path.join(dataDir, 'demo-credentials.json');
  let created = false;
  /** The CA of that name, made with these options on first start. */
  const ensureCa = async (name: string, options: Partial<Parameters<typeof initCa>[0]>): Promise<CaRecord> => {
    const found = await store.findCaByName(name);
    if (found) return found;
    created = true;
    return initCa({
      store,
      keyBackends,
      name,
      subject: [{ oid: 'CN', value: name }],
      keyType: 'EC',
      defaultHostname: hostname,
      ...options,
    });
  };
  const root = await ensureCa(ROOT_NAME, { curve: 'secp384r1', pathLength: 1 });
  const intermediate = await ensureCa(INTERMEDIATE_NAME, { parent: root, apiEnabled: true, expiresDays: 3 * 365 });
  let credentials: DemoCredentials;
  if (fs.existsSync(credentialsFile)) {
    credentials = JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as DemoCredentials;
  } else {
    credentials = { username: 'demo', password: randomBytes(12).toString('base64url') };
    await createApiUser(store, credentials.username, credentials.password);
    fs.writeFileSync(credentialsFile, JSON.stringify(credentials) + '\n', { mode: 0o600 });
    created = true;
  }
  fs.writeFileSync(path.join(dataDir, 'root.pem'), root.certificate.pem);
  return { root, intermediate, credentials, created };
}

/** A runner that accepts orders and does nothing: they stay pending for another process. */
const holdingRunner: OrderRunner = { start: async () => undefined, stop: async () => undefined, notify: () => undefined };

export async function startHostServer(options: HostServerOptions = {}): Promise<HostServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const dataDir = path.resolve(options.dataDir ?? process.env.CA_DATA_DIR ?? './.ca-data');
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL ?? dataDir;
  const requestedPort = options.port ?? Number(process.env.PORT ?? 8000);

  const db = await openDatabase(databaseUrl); // creates the PGlite directory on first use
  fs.mkdirSync(dataDir, { recursive: true });
  const store = knexStore(db);
  await store.migrate();
  const keyBackends = {
    default: defaultKeyBackend({
      keyEncryptionKey: keyEncryptionKey(dataDir, options.keyEncryptionKey ?? process.env.CA_KEY_ENCRYPTION_KEY, log),
    }),
  };

  const app = express();
  const router = createCaApiRouter({
    enableRestApi: true,
    store,
    keyBackends,
    ...((options.holdOrders ?? process.env.CA_ORDER_RUNNER === 'off') ? { orderRunner: holdingRunner } : {}),
  });
  app.use(router);
  app.get('/', (_req, res) => {
    res.type('text/plain').send('express-ca-api example host. The API is at /django_ca/api/ (docs: /django_ca/api/docs/).\n');
  });

  const server = await new Promise<import('http').Server>((resolve, reject) => {
    const s = app.listen(requestedPort, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
    answerClientErrorsAsJson(s); // 431/400/408 from Node itself get a JSON body too (README D11)
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;
  const apiRoot = `${url}/django_ca/api`;
  const { root, intermediate, credentials, created } = await ensureDemoData(store, keyBackends, dataDir, `localhost:${port}`);

  log(`express-ca-api example listening on ${url}`);
  log(`API docs: ${apiRoot}/docs/`);
  log(created ? 'Created a root CA, an API-enabled intermediate CA and an API user:' : 'API user:');
  log(`  username: ${credentials.username}`);
  log(`  password: ${credentials.password}`);
  log(walkThrough(apiRoot, credentials, intermediate.serial, path.join(dataDir, 'root.pem'), root.serial));

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
      await store.close();
    },
  };
}

const JSON_FIELD = (expr: string) => `node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8"))${expr}'`;

/** Copy-paste shell commands (bash) for the whole flow, with this server's values filled in. */
export function walkThrough(apiRoot: string, c: DemoCredentials, caSerial: string, rootPem: string, rootSerial: string): string {
  const auth = `-u '${c.username}:${c.password}'`;
  return [
    '',
    'Try it (bash; needs curl, openssl, node):',
    '--- walk-through ---',
    `API='${apiRoot}'`,
    '# 1. a key and a CSR',
    "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout demo.key -out demo.csr -subj '/CN=demo.example.com'",
    '# 2. find the CA (the API-enabled intermediate)',
    `curl -s ${auth} "$API/ca/" | ${JSON_FIELD('.map(ca => ca.name + " " + ca.certificate.serial).join("\\n")')}`,
    `CA='${caSerial}'`,
    `curl -s ${auth} "$API/ca/$CA/" | ${JSON_FIELD('.certificate.pem')} > intermediate.pem`,
    '# 3. ask for a certificate: the answer is an order',
    `BODY=$(node -e 'console.log(JSON.stringify({csr: require("fs").readFileSync("demo.csr", "utf8"), subject: [{oid: "CN", value: "demo.example.com"}], extensions: [{type: "subject_alternative_name", value: [{type: "DNS", value: "demo.example.com"}]}]}))')`,
    `SLUG=$(curl -s ${auth} -H 'Content-Type: application/json' -d "$BODY" "$API/ca/$CA/sign/" | ${JSON_FIELD('.slug')})`,
    '# 4. poll the order until it is issued',
    `for i in $(seq 1 20); do STATUS=$(curl -s ${auth} "$API/ca/$CA/orders/$SLUG/" | ${JSON_FIELD('.status')}); [ "$STATUS" != pending ] && break; sleep 0.5; done; echo "order $SLUG: $STATUS"`,
    `SERIAL=$(curl -s ${auth} "$API/ca/$CA/orders/$SLUG/" | ${JSON_FIELD('.serial')})`,
    '# 5. fetch the certificate and check it with openssl',
    `curl -s ${auth} "$API/ca/$CA/certs/$SERIAL/" | ${JSON_FIELD('.certificate.pem')} > demo.pem`,
    `openssl verify -CAfile '${rootPem}' -untrusted intermediate.pem demo.pem`,
    '# 6. as a relying party: the intermediate from the CA-Issuers URL in the certificate, OCSP, CRL',
    `curl -s "$(openssl x509 -in demo.pem -noout -ext authorityInfoAccess | sed -n 's/.*CA Issuers - URI://p')" | openssl x509 -inform DER -out issuer.pem`,
    `openssl verify -CAfile '${rootPem}' -untrusted issuer.pem demo.pem`,
    `cat '${rootPem}' issuer.pem > chain.pem`,
    'openssl ocsp -issuer issuer.pem -cert demo.pem -url "$(openssl x509 -in demo.pem -noout -ocsp_uri)" -CAfile chain.pem',
    '# 7. revoke it: OCSP and the CRL say so at once',
    `curl -s ${auth} -H 'Content-Type: application/json' -d '{"reason": "key_compromise"}' "$API/ca/$CA/certs/$SERIAL/revoke/" > /dev/null`,
    'openssl ocsp -issuer issuer.pem -cert demo.pem -url "$(openssl x509 -in demo.pem -noout -ocsp_uri)" -CAfile chain.pem',
    `curl -s "$(openssl x509 -in demo.pem -noout -ext crlDistributionPoints | sed -n 's/.*URI://p')" | openssl crl -inform DER -out demo-crl.pem`,
    `curl -s "\${API%/api}/crl/ca/${rootSerial}/?encoding=PEM" > root-crl.pem`,
    'openssl crl -in demo-crl.pem -noout -text | grep -A4 -E "Serial Number: 0?$SERIAL"',
    `cat demo-crl.pem root-crl.pem > crls.pem`,
    `openssl verify -crl_check_all -CAfile '${rootPem}' -untrusted issuer.pem -CRLfile crls.pem demo.pem 2>&1 || true`,
    '--- end ---',
  ].join('\n');
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
