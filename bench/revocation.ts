/**
 * Revocation serving benchmark (PGlite in memory; PostgreSQL in a scratch schema when DATABASE_URL or
 * TEST_DATABASE_URL is a postgres:// URL). Localhost only, bounded loops. Prints, in one run:
 *
 *  1. CRL build time with 1k, 10k and 100k revoked certificates (median of 3 builds each);
 *  2. revoke latency (POST …/revoke/ through the API) on a CA with 100k revoked certificates and on one
 *     with none — revoking never rebuilds a CRL, so the ratio should stay near 1;
 *  3. OCSP responses/s for a nonce-less request (kept answers), for a request with a nonce (signed
 *     each time), and for a bare Express route answering a fixed 500-byte body, with the same client —
 *     the ratios are the responder's cost;
 *  4. the plan PostgreSQL chooses for the OCSP status lookup on the CA with 100k certificates.
 *
 *   npm run bench:revocation
 */
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import express from 'express';
import type { Knex } from 'knex';
import { createApiUser, createCaApiRouter, defaultKeyBackend, initCa, knexStore, openDatabase, signCert, defaultProfiles } from '../lib';
import { CrlPublisher } from '../lib/ca/crls';
import type { CaRecord, NewCertificate, Store } from '../lib/ports';
import { pemEncode } from '../lib/x509/pem';
import { benchCsrPem } from './csr';
import { serve } from './serve';
import { RemoteLoader, type LoadJob } from './load-client';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';

const CLIENTS = Number(process.env.CLIENTS ?? 32);
const OCSP_REQUESTS = Number(process.env.OCSP_REQUESTS ?? 3000);
const LEVELS = [1_000, 10_000, 100_000];
const REVOKES = 40;

/** The load-generating child process, started once. */
const loader = new RemoteLoader();
const remoteLoad = (job: LoadJob): Promise<number> => loader.run(job);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** `count` stored certificates of `ca`, copies of one real one under fresh serials (bulk insert). */
async function fillCertificates(store: Store, template: NewCertificate, count: number): Promise<string[]> {
  const batchStore = store as Store & { insertCertificateIds(certs: NewCertificate[]): Promise<number[]> };
  const serials: string[] = [];
  for (let done = 0; done < count;) {
    const chunk: NewCertificate[] = [];
    for (let i = 0; i < Math.min(2000, count - done); i++) {
      const serial = randomBytes(16).toString('hex').toUpperCase().replace(/^0+/, '');
      serials.push(serial);
      chunk.push({ ...template, serial });
    }
    await batchStore.insertCertificateIds(chunk);
    done += chunk.length;
  }
  return serials;
}

/** Revoke the first `count` not yet revoked certificates of a CA in one statement (bench set-up). */
async function revokeMany(db: Knex, caId: number, count: number): Promise<void> {
  await db.raw(
    `UPDATE ca_api_certificates SET revoked = true, revoked_date = now(), revoked_reason = 'key_compromise'
     WHERE id IN (SELECT id FROM ca_api_certificates WHERE ca_id = ? AND NOT revoked ORDER BY id LIMIT ?)`,
    [caId, count],
  );
}

async function run(label: string, databaseUrl: string): Promise<void> {
  console.log(`\n== ${label} ==`);
  const db = await openDatabase(databaseUrl);
  const store = knexStore(db);
  await store.migrate();
  const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) };
  const base = { store, keyBackends, keyType: 'EC' as const, apiEnabled: true, expiresDays: 365 };
  const busy = await initCa({ ...base, name: 'busy', subject: [{ oid: 'CN', value: 'Busy CA' }] });
  const quiet = await initCa({ ...base, name: 'quiet', subject: [{ oid: 'CN', value: 'Quiet CA' }] });
  const one = async (ca: CaRecord) =>
    signCert({
      store,
      keyBackends,
      profiles: defaultProfiles(),
      ca,
      csr: benchCsrPem(),
      subject: [{ oid: '2.5.4.3', value: 'bench.example.com' }],
    });
  const template = await one(busy);
  const { id: _id, created: _c, updated: _u, watchers: _w, ...newCert } = template;

  // 1. CRL build times
  const t0 = process.hrtime.bigint();
  const busySerials = await fillCertificates(store, newCert, LEVELS[LEVELS.length - 1] + REVOKES);
  const quietSerials = await fillCertificates(store, { ...newCert, caId: quiet.id }, REVOKES);
  console.log(`set-up: ${busySerials.length + quietSerials.length} certificates stored in ${(ms(t0) / 1000).toFixed(1)} s`);
  const publisher = new CrlPublisher(store, keyBackends);
  let revoked = 0;
  for (const level of LEVELS) {
    await revokeMany(db, busy.id, level - revoked);
    revoked = level;
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 3; i++) {
      const t = process.hrtime.bigint();
      bytes = (await publisher.build(busy, 'user')).der.length;
      times.push(ms(t));
    }
    console.log(`CRL build, ${level} revoked: ${median(times).toFixed(0)} ms (median of 3; ${(bytes / 1024).toFixed(0)} KiB)`);
  }

  // The API, for revoke latency and OCSP.
  await createApiUser(store, 'bench', 'bench-password', {}, { bcryptCost: 4 });
  const app = express();
  const router = createCaApiRouter({ enableRestApi: true, store, keyBackends, env: {} });
  app.use(router);
  const fixed = randomBytes(500);
  app.post('/bare', (_req, res) => {
    res.type('application/ocsp-response').send(fixed);
  });
  const server = await serve(app);
  const url = server.url;
  const auth = `Basic ${Buffer.from('bench:bench-password').toString('base64')}`;

  // 2. revoke latency, 100k revoked vs none
  const revokeTimes = async (ca: CaRecord, serials: string[]) => {
    const times: number[] = [];
    for (const serial of serials) {
      const t = process.hrtime.bigint();
      const res = await fetch(`${url}/django_ca/api/ca/${ca.serial}/certs/${serial}/revoke/`, {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': 'application/json' },
        body: '{"reason": "superseded"}',
      });
      if (res.status !== 200) throw new Error(`revoke: ${res.status} ${await res.text()}`);
      times.push(ms(t));
    }
    return median(times);
  };
  await revokeTimes(quiet, quietSerials.slice(0, 5)); // warm up (credential cache, JIT)
  const withMany = await revokeTimes(busy, busySerials.slice(-REVOKES));
  const withNone = await revokeTimes(quiet, quietSerials.slice(5));
  console.log(
    `revoke latency: ${withMany.toFixed(2)} ms with ${revoked} revoked vs ${withNone.toFixed(2)} ms with none (ratio ${(withMany / withNone).toFixed(2)})`,
  );

  // 3. OCSP responses/s (requests made by openssl for a good certificate of the busy CA)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-revocation-'));
  try {
    fs.writeFileSync(path.join(dir, 'ca.pem'), pemEncode(busy.der, 'CERTIFICATE'));
    const request = (extra: string[]) => {
      execFileSync('openssl', ['ocsp', '-issuer', 'ca.pem', '-serial', `0x${template.serial}`, ...extra, '-reqout', 'req.der'], {
        cwd: dir,
        stdio: 'pipe',
      });
      return fs.readFileSync(path.join(dir, 'req.der')).toString('base64');
    };
    const ocspUrl = `${url}/django_ca/ocsp/${busy.serial}/cert/`;
    const job = (target: string, bodyBase64: string): LoadJob => ({
      kind: 'post',
      url: target,
      bodyBase64,
      contentType: 'application/ocsp-request',
      total: OCSP_REQUESTS,
      clients: CLIENTS,
    });
    const kept = request(['-no_nonce']);
    const nonced = request([]);
    await remoteLoad({ ...job(ocspUrl, kept), total: 300 }); // warm up, make the delegated responder
    await remoteLoad({ ...job(`${url}/bare`, kept), total: 300 });
    const bare = await remoteLoad(job(`${url}/bare`, kept));
    const cached = await remoteLoad(job(ocspUrl, kept));
    const signed = await remoteLoad(job(ocspUrl, nonced));
    console.log(
      `OCSP responses/s: kept ${cached.toFixed(0)}, signed each time ${signed.toFixed(0)}, bare 500-byte route ${bare.toFixed(0)}`,
    );
    console.log(`OCSP ratios to the bare route: kept ${(cached / bare).toFixed(2)}, signed ${(signed / bare).toFixed(2)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // 4. the status lookup's plan on the CA with 100k certificates
  await db.raw('ANALYZE ca_api_certificates');
  const plan = (await db.raw('EXPLAIN SELECT * FROM ca_api_certificates WHERE ca_id = ? AND serial = ?', [busy.id, template.serial])) as {
    rows: { 'QUERY PLAN': string }[];
  };
  const lines = plan.rows.map((r) => r['QUERY PLAN']);
  console.log(`OCSP lookup plan: ${lines[0].trim()}${lines.some((l) => /Index/.test(l)) ? ' (index, no scan)' : ' (NO INDEX)'}`);

  await server.close();
  await router.close();
  await store.close();
}

async function main(): Promise<void> {
  await run('PGlite (embedded, in memory)', 'memory://');
  const pg = benchPostgresUrl();
  if (pg) await withScratchSchema(pg, (scoped) => run('PostgreSQL', scoped));
  loader.exit();
}

main().catch((e: unknown) => {
  console.error(e);
  loader.kill();
  process.exit(1);
});
