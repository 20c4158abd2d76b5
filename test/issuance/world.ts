/**
 * One CA hierarchy and every way in to it, on one database, for the issuance parity test (parity.test.ts):
 *
 * - a root, and two intermediates made by openssl (so that the test knows every CA key, and so that
 *   they carry nameConstraints, which `init_ca` does not write) and imported as `import_ca` imports:
 *   `constrained` (a year, nameConstraints permitted DNS example.com, excluded DNS excluded.example.com)
 *   and `short` (the same constraints, 20 days left);
 * - one router with the REST API, ACME, EST and SCEP on a listening server (ACME's http-01 is
 *   validated over the network, through a test DNS server), the in-process order runner, an EST and
 *   a SCEP endpoint per intermediate (no label: `constrained`, label `short`);
 * - the admin interface, signed in as `alice`, and `ca-admin` run in-process, on the same store and keys.
 */
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { challengeValidator } from '../../adapters/acme-validation';
import { defaultKeyBackend } from '../../adapters/keys';
import { createCaAdminRouter, importCa, type CaAdminRouter, type CaRecord, type Logger } from '../../lib';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { ADMIN_PERMISSIONS, ALL_PERMISSIONS, type KeyBackend, type Store } from '../../lib/ports';
import { formToken } from '../admin/admin-fixture';
import { cliRunner, TEST_KEK } from '../cli/helpers';
import { openTestDatabase, type DatabaseTarget, type TestDatabase } from '../helpers/database';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { authHeader, buildApp, hashPassword, type TestApp } from '../helpers/http';
import express from 'express';

export const API = '/django_ca/api';
export const EST = '/.well-known/est';
export const SCEP = '/django_ca/scep';
export const ADMIN = '/admin/';
export const SCEP_CHALLENGE = 'parity-secret';
const PASSWORD = 'correct horse';

/** The CAs a request can go to. */
export type CaName = 'constrained' | 'short';

/** A CA of the hierarchy: its record, certificate (PEM) and key (PEM, unencrypted), and where each door finds it. */
export interface WorldCa {
  record: CaRecord;
  pem: string;
  keyPem: string;
  /** The EST and SCEP label of its endpoint ('' = the unlabelled one). */
  label: string;
}

export interface World {
  db: TestDatabase;
  store: Store;
  keyBackend: KeyBackend;
  dir: string;
  root: { pem: string; keyPem: string };
  cas: Record<CaName, WorldCa>;
  /** The router's app (REST, ACME, EST, SCEP), also listening at `base` (ACME needs a real server). */
  api: TestApp;
  base: string;
  dns: TestDnsServer;
  /** token → key authorization, served on `http01Port` under /.well-known/acme-challenge/. */
  http01: Map<string, string>;
  adminApp: express.Express;
  /** A supertest agent signed in to the admin interface as alice (cookies kept). */
  admin: ReturnType<typeof request.agent>;
  cli: ReturnType<typeof cliRunner>;
  auth: { Authorization: string };
  close(): Promise<void>;
}

const openssl = (args: string[], cwd: string): string => execFileSync('openssl', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] }).toString();

const CA_EXTENSIONS = (constraints: boolean) =>
  [
    '[v3]',
    'basicConstraints = critical, CA:TRUE, pathlen:0',
    'keyUsage = critical, keyCertSign, cRLSign',
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid',
    ...(constraints ? ['nameConstraints = critical, permitted;DNS:example.com, excluded;DNS:excluded.example.com'] : []),
  ].join('\n');

/** The root (RSA-2048, 10 years) and an intermediate of it (RSA-2048, nameConstraints, `days` long), by openssl. */
function makeHierarchy(dir: string): {
  root: { pem: string; keyPem: string };
  constrained: { pem: string; keyPem: string };
  short: { pem: string; keyPem: string };
} {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'root.key',
      '-out',
      'root.pem',
      '-subj',
      '/CN=Parity Root',
      '-days',
      '3650',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  fs.writeFileSync(path.join(dir, 'ca.cnf'), CA_EXTENSIONS(true));
  const intermediate = (name: string, cn: string, days: number) => {
    openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'root.pem',
        '-CAkey',
        'root.key',
        '-set_serial',
        `0x${randomBytes(8).toString('hex')}`,
        '-days',
        String(days),
        '-extfile',
        'ca.cnf',
        '-extensions',
        'v3',
        '-sha256',
        '-out',
        `${name}.pem`,
      ],
      dir,
    );
    return read(name);
  };
  const read = (name: string) => ({
    pem: fs.readFileSync(path.join(dir, `${name}.pem`), 'utf8'),
    keyPem: fs.readFileSync(path.join(dir, `${name}.key`), 'utf8'),
  });
  return {
    root: read('root'),
    constrained: intermediate('constrained', 'Parity Constrained', 365),
    short: intermediate('short', 'Parity Short', 20),
  };
}

function listen(handler: http.RequestListener): Promise<http.Server> {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

export async function startWorld(target: DatabaseTarget): Promise<World> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parity-'));
  const db = await openTestDatabase(target);
  const store = db.store;
  // The CLI's key-encryption key: CAs imported here are the CAs ca-admin signs with.
  const keyBackend = defaultKeyBackend({ keyEncryptionKey: Buffer.from(TEST_KEK, 'base64') });
  const keyBackends = { default: keyBackend };

  const made = makeHierarchy(dir);
  const acme = { acmeEnabled: true, acmeRequiresContact: false };
  const root = await importCa({ store, keyBackends, name: 'parity-root', certificate: made.root.pem, key: made.root.keyPem });
  const imported = async (name: CaName) =>
    importCa({ store, keyBackends, name, certificate: made[name].pem, key: made[name].keyPem, parent: root, apiEnabled: true, acme });
  const constrained = await imported('constrained');
  const short = await imported('short');

  await store.createUser('alice', hashPassword(PASSWORD), [...ALL_PERMISSIONS, ...ADMIN_PERMISSIONS]);

  const dns = await startDnsServer();
  const http01 = new Map<string, string>();
  const responder = await listen((req, res) => {
    const answer = http01.get((req.url ?? '').replace('/.well-known/acme-challenge/', ''));
    res.statusCode = answer ? 200 : 404;
    res.end(answer ?? 'not found');
  });
  const http01Port = (responder.address() as AddressInfo).port;
  const runner = inProcessOrderRunner({ store, keyBackends, pollIntervalMs: 50, logError: () => undefined });
  const api = buildApp({
    enableRestApi: true,
    store,
    keyBackends,
    orderRunner: runner,
    acme: {
      enabled: true,
      validator: challengeValidator({ dnsServers: [dns.address], http01Port, timeoutMs: 3000 }),
      validationRetryMs: 200,
      newOrdersPerAccount: { limit: 10_000, windowMs: 60_000 },
    },
    est: { enabled: true, ca: constrained.serial, labels: { short: { ca: short.serial } } },
    scep: {
      enabled: true,
      ca: constrained.serial,
      challenge: SCEP_CHALLENGE,
      labels: { short: { ca: short.serial, challenge: SCEP_CHALLENGE } },
    },
  });
  const server = await listen(api.app);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const adminApp = express();
  const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
  const adminRouter: CaAdminRouter = createCaAdminRouter({ store, keyBackends, logger });
  adminApp.use(adminRouter);
  const admin = request.agent(adminApp);
  const login = await admin.get(`${ADMIN}login`).expect(200);
  const signedIn = await admin
    .post(`${ADMIN}login`)
    .type('form')
    .send({ _csrf: formToken(login.text), username: 'alice', password: PASSWORD, next: '' });
  if (signedIn.status !== 303) throw new Error(`admin sign-in: ${signedIn.status}`);

  return {
    db,
    store,
    keyBackend,
    dir,
    root: made.root,
    cas: {
      constrained: { record: constrained, ...made.constrained, label: '' },
      short: { record: short, ...made.short, label: 'short' },
    },
    api,
    base,
    dns,
    http01,
    adminApp,
    admin,
    cli: cliRunner(store),
    auth: authHeader('alice', PASSWORD),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      responder.closeAllConnections();
      await new Promise((r) => responder.close(r));
      await adminRouter.close();
      await api.close();
      await dns.close();
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
