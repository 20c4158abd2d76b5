/**
 * An ACME server for the protocol tests: a real store (PGlite, and PostgreSQL in CI) with a root and an
 * ACME-enabled issuing CA, `createCaApiRouter` with ACME on a host app listening on a free port, the
 * package's own challenge validator pointed at a test DNS server and a high http-01 port, and an
 * http-01 responder a test fills with key authorizations.
 */
import { randomBytes } from 'crypto';
import express from 'express';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as acme from 'acme-client';
import { challengeValidator } from '../../adapters/acme-validation';
import { hasAcmeStore, type AcmeStoreProvider, type KeyBackend } from '../../lib/ports';
import {
  createCaApiRouter,
  defaultKeyBackend,
  initCa,
  type CaApiRouter,
  type CaApiRouterOptions,
  type CaRecord,
  type Store,
} from '../../lib';
import { openTestDatabase, type DatabaseTarget, type TestDatabase } from '../helpers/database';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';

export const KEK = randomBytes(32).toString('base64');

export interface AcmeFixture {
  db: TestDatabase;
  store: Store & AcmeStoreProvider;
  root: CaRecord;
  ca: CaRecord;
  dns: TestDnsServer;
  /** token → key authorization served under /.well-known/acme-challenge/ */
  http01: Map<string, string>;
  http01Port: number;
  /** `http://127.0.0.1:port` of the ACME host app */
  base: string;
  directory: string;
  router: CaApiRouter;
  close(): Promise<void>;
}

function listen(app: http.RequestListener): Promise<http.Server> {
  return new Promise((resolve) => {
    const server = http.createServer(app);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

export async function startAcmeServer(
  target: DatabaseTarget,
  acme: NonNullable<CaApiRouterOptions['acme']> = {},
  existing?: { db: TestDatabase; root?: CaRecord; ca?: CaRecord; store?: Store; keyBackends?: Record<string, KeyBackend> },
): Promise<AcmeFixture> {
  const db = existing?.db ?? (await openTestDatabase(target));
  const store = existing?.store ?? db.store;
  if (!hasAcmeStore(store)) throw new Error('the ACME tests need a store with the ACME capability');
  const keyBackends = existing?.keyBackends ?? { default: defaultKeyBackend({ keyEncryptionKey: KEK }) };
  let root = existing?.root;
  let ca = existing?.ca;
  if (!root || !ca) {
    const base = { store, keyBackends, keyType: 'EC' as const, defaultHostname: 'ca.example.com' };
    root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'ACME Test Root' }], pathLength: 1 });
    ca = await initCa({ ...base, name: 'issuing', subject: [{ oid: 'CN', value: 'ACME Test Issuing' }], parent: root, expiresDays: 365 });
    ca = await store.updateCa(ca.id, { acmeEnabled: true, acmeRequiresContact: false });
  }
  const dns = await startDnsServer();
  const http01 = new Map<string, string>();
  const responder = await listen((req, res) => {
    const token = (req.url ?? '').replace('/.well-known/acme-challenge/', '');
    const answer = http01.get(token);
    res.statusCode = answer ? 200 : 404;
    res.end(answer ?? 'not found');
  });
  const http01Port = (responder.address() as AddressInfo).port;
  const validator = challengeValidator({ dnsServers: [dns.address], http01Port, timeoutMs: 3000 });
  const router = createCaApiRouter({
    store,
    keyBackends,
    acme: { enabled: true, validator, validationRetryMs: 200, ...acme },
    logError: (message, error) => console.error(message, error),
  });
  const app = express();
  app.use(router);
  const server = await listen(app);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    db,
    store,
    root,
    ca,
    dns,
    http01,
    http01Port,
    base,
    directory: `${base}/django_ca/acme/directory/${ca.serial}/`,
    router,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      responder.closeAllConnections();
      await new Promise((r) => responder.close(r));
      await router.close();
      await dns.close();
      if (!existing) await db.close();
    },
  };
}

/** A certificate for `name` through acme-client's `auto` and the fixture's http-01 responder: the chain, and the key as PEM. */
export async function issueWithAcmeClient(client: acme.Client, server: AcmeFixture, name: string): Promise<{ chain: string; key: string }> {
  server.dns.setA(name, ['127.0.0.1']);
  const [key, csr] = await acme.crypto.createCsr({ commonName: name });
  const chain = await client.auto({
    csr,
    skipChallengeVerification: true,
    challengePriority: ['http-01'],
    challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
      server.http01.set(challenge.token, keyAuthorization);
    },
    challengeRemoveFn: async () => {},
  });
  return { chain, key: key.toString() };
}
