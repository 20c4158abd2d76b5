/**
 * One CA hierarchy and every way in to it, on one database, for the issuance parity test (parity.test.ts):
 *
 * - a root, and two intermediates made by openssl (so that the test knows every CA key, and so that
 *   they carry nameConstraints, which `init_ca` does not write) and imported as `import_ca` imports:
 *   `constrained` (a year, nameConstraints permitted DNS example.com, excluded DNS excluded.example.com)
 *   and `short` (the same constraints, 20 days left); `disabled` and `revoked`, as `constrained` but
 *   disabled, or revoked, before the router starts; `narrowed`, as `constrained` with an issuance
 *   policy of its own (`NARROWED_POLICY`);
 * - one router with the REST API, ACME, EST and SCEP on a listening server (ACME's http-01 is
 *   validated over the network, through a test DNS server), the in-process order runner, an EST and
 *   a SCEP endpoint per intermediate (no label: `constrained`, else labelled with the CA's name);
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
import { ADMIN_PERMISSIONS, ALL_PERMISSIONS, type CaIssuancePolicy, type KeyBackend, type Store } from '../../lib/ports';
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
export type CaName = 'constrained' | 'short' | 'disabled' | 'revoked' | 'narrowed';

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
  root: Pem;
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

/**
 * The issuance policy of `narrowed` (docs/guides/issuance-policy.md): RSA and P-384 keys only (RSA kept: SCEP
 * signs its messages with RSA keys), names under corp.example.com only, and none under
 * blocked.corp.example.com.
 */
export const NARROWED_POLICY: CaIssuancePolicy = {
  keys: ['RSA-2048', 'P-384'],
  allow: ['corp.example.com'],
  deny: ['blocked.corp.example.com'],
};

const openssl = (args: string[], cwd: string): string => execFileSync('openssl', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] }).toString();

/** The extensions of an intermediate: a CA for end entities, its names constrained. */
const INTERMEDIATE_EXTENSIONS = [
  '[v3]',
  'basicConstraints = critical, CA:TRUE, pathlen:0',
  'keyUsage = critical, keyCertSign, cRLSign',
  'subjectKeyIdentifier = hash',
  'authorityKeyIdentifier = keyid',
  'nameConstraints = critical, permitted;DNS:example.com, excluded;DNS:excluded.example.com',
].join('\n');

/** A CA's certificate and key, both PEM. */
type Pem = { pem: string; keyPem: string };

/**
 * The root (RSA-2048, 10 years, self-signed) and the intermediates under it (RSA-2048, nameConstraints),
 * by openssl. RSA: a CSR with a CA's key goes through SCEP too, whose messages are signed with RSA keys.
 */
function makeHierarchy(dir: string): Record<'root' | CaName, Pem> {
  const root = '-x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem -days 3650'.split(' ');
  const caExtensions = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  openssl(['req', ...root, '-subj', '/CN=Parity Root', ...caExtensions], dir);
  fs.writeFileSync(path.join(dir, 'ca.cnf'), INTERMEDIATE_EXTENSIONS);
  const read = (name: string): Pem => ({
    pem: fs.readFileSync(path.join(dir, `${name}.pem`), 'utf8'),
    keyPem: fs.readFileSync(path.join(dir, `${name}.key`), 'utf8'),
  });
  const intermediate = (name: string, days: number): Pem => {
    openssl(
      ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=Parity ${name}`],
      dir,
    );
    const signed = `x509 -req -in ${name}.csr -CA root.pem -CAkey root.key -extfile ca.cnf -extensions v3 -sha256 -out ${name}.pem`;
    openssl([...signed.split(' '), '-days', String(days), '-set_serial', `0x${randomBytes(8).toString('hex')}`], dir);
    return read(name);
  };
  return {
    root: read('root'),
    constrained: intermediate('constrained', 365),
    short: intermediate('short', 20),
    disabled: intermediate('disabled', 365),
    revoked: intermediate('revoked', 365),
    narrowed: intermediate('narrowed', 365),
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
  const disabled = await store.updateCa((await imported('disabled')).id, { enabled: false });
  const revoked = await store.revokeCa((await imported('revoked')).id, 'key_compromise', null, new Date());
  const narrowed = await store.updateCa((await imported('narrowed')).id, { issuancePolicy: NARROWED_POLICY });
  /** The CAs of the labelled EST and SCEP endpoints (the label is the CA's name). */
  const others = [short, disabled, revoked, narrowed];

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
    est: { enabled: true, ca: constrained.serial, labels: Object.fromEntries(others.map((ca) => [ca.name, { ca: ca.serial }])) },
    scep: {
      enabled: true,
      ca: constrained.serial,
      challenge: SCEP_CHALLENGE,
      labels: Object.fromEntries(others.map((ca) => [ca.name, { ca: ca.serial, challenge: SCEP_CHALLENGE }])),
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
      disabled: { record: disabled, ...made.disabled, label: 'disabled' },
      revoked: { record: revoked, ...made.revoked, label: 'revoked' },
      narrowed: { record: narrowed, ...made.narrowed, label: 'narrowed' },
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
