/**
 * API benchmark on the example host server's setup (PGlite; also PostgreSQL when DATABASE_URL or
 * TEST_DATABASE_URL is a postgres:// URL). Localhost only, bounded loops. Prints:
 *
 *  1. requests/s of GET /ca/{serial}/certs/{serial}/ (Basic auth, credential cache warm) next to a
 *     bare Express route answering the same JSON — the ratio is the API's overhead (target ≥ 0.6);
 *  2. issued certificates/s end to end (POST sign → order issued) for an EC P-256 and an RSA-2048
 *     intermediate, next to raw signatures/s with the same key — the ratio is the cost around signing;
 *  3. event-loop delay p99 while 20 clients with wrong passwords hammer the server (bcrypt must not
 *     run on the event loop).
 *
 *   npm run bench:api
 */
import { randomBytes } from 'crypto';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { monitorEventLoopDelay } from 'perf_hooks';
import express from 'express';
import { startHostServer, type HostServer } from '../examples/host-server/server';
import { serializeJson } from '../lib/api/json';
import { initCa } from '../lib/ca/authorities';
import { certificateToJson } from '../lib/ca/serialize';
import type { CaRecord } from '../lib/ports';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

interface Reply {
  status: number;
  body: string;
}

function call(url: string, options: { method?: string; auth?: string; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.auth) headers.Authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    if (options.body) headers['Content-Type'] = 'application/json';
    const req = http.request(url, { method: options.method ?? 'GET', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `total` requests from `clients` concurrent clients; requests per second. */
async function load(total: number, clients: number, one: () => Promise<void>): Promise<number> {
  let left = total;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (left-- > 0) await one();
    }),
  );
  return total / (Number(process.hrtime.bigint() - start) / 1e9);
}

const fmt = (n: number) => n.toFixed(n >= 100 ? 0 : 1);

function csrPem(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-csr-'));
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, 'k'), '-out', path.join(dir, 'r'), '-subj', '/CN=bench.example.com'], { stdio: 'pipe' });
  const pem = fs.readFileSync(path.join(dir, 'r'), 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  return pem;
}

async function issueOne(server: HostServer, auth: string, caSerial: string, csr: string): Promise<string> {
  const signed = await call(`${server.apiRoot}/ca/${caSerial}/sign/`, {
    method: 'POST',
    auth,
    body: JSON.stringify({ csr, subject: [{ oid: 'CN', value: 'bench.example.com' }] }),
  });
  if (signed.status !== 200) throw new Error(`sign: ${signed.status} ${signed.body}`);
  const slug = (JSON.parse(signed.body) as { slug: string }).slug;
  for (let i = 0; i < 2000; i++) {
    const order = JSON.parse((await call(`${server.apiRoot}/ca/${caSerial}/orders/${slug}/`, { auth })).body) as { status: string; serial: string; error: string };
    if (order.status === 'issued') return order.serial;
    if (order.status === 'failed') throw new Error(`order failed: ${order.error}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('order not issued');
}

async function rawSignsPerSecond(server: HostServer, ca: CaRecord, hash: 'SHA-256' | 'SHA-512', ms = 1000): Promise<number> {
  const signer = await server.keyBackends[ca.keyBackendAlias].getSigner(ca.keyBackendOptions ?? {});
  const data = randomBytes(600); // about the size of a TBSCertificate
  let n = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await signer.sign(data, { hash });
    n++;
  }
  return n / (ms / 1000);
}

async function run(label: string, databaseUrl: string | undefined): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-'));
  const server = await startHostServer({
    dataDir,
    databaseUrl: databaseUrl ?? dataDir,
    port: 0,
    keyEncryptionKey: randomBytes(32).toString('base64'),
    log: () => undefined,
  });
  try {
    const auth = `${server.credentials.username}:${server.credentials.password}`;
    const csr = csrPem();
    console.log(`\n== ${label}`);

    // 1. GET a certificate vs a bare route with the same JSON
    const certSerial = await issueOne(server, auth, server.intermediate.serial, csr);
    const certUrl = `${server.apiRoot}/ca/${server.intermediate.serial}/certs/${certSerial}/`;
    const record = (await server.store.findCertificate(server.intermediate.id, certSerial))!;
    const bare = express();
    bare.get('/cert', (_req, res) => {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(serializeJson(certificateToJson(record)));
    });
    const bareServer = bare.listen(0, '127.0.0.1');
    await new Promise((r) => bareServer.once('listening', r));
    const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/cert`;
    const get = async (url: string, a?: string) => {
      const r = await call(url, { auth: a });
      if (r.status !== 200) throw new Error(`GET ${url}: ${r.status}`);
    };
    await load(200, 10, () => get(certUrl, auth)); // warm up (credential cache, JIT)
    await load(200, 10, () => get(bareUrl));
    const apiRps = await load(3000, 10, () => get(certUrl, auth));
    const bareRps = await load(3000, 10, () => get(bareUrl));
    bareServer.close();
    console.log(`GET certificate: ${fmt(apiRps)} req/s; bare Express route: ${fmt(bareRps)} req/s; ratio ${(apiRps / bareRps).toFixed(2)} (target >= 0.6)`);

    // 2. issuance end to end vs raw signatures, EC P-256 and RSA-2048 intermediates
    const rsa = await initCa({
      store: server.store,
      keyBackends: server.keyBackends,
      name: 'Bench RSA Intermediate',
      subject: [{ oid: 'CN', value: 'Bench RSA Intermediate' }],
      keyType: 'RSA',
      keySize: 2048,
      algorithm: 'SHA-256',
      parent: server.root,
      apiEnabled: true,
      expiresDays: 365,
    });
    for (const [name, ca, hash] of [
      ['EC P-256', server.intermediate, 'SHA-512'],
      ['RSA-2048', rsa, 'SHA-256'],
    ] as const) {
      await issueOne(server, auth, ca.serial, csr); // warm up
      const count = 60;
      const perSecond = await load(count, 4, async () => {
        await issueOne(server, auth, ca.serial, csr);
      });
      const raw = await rawSignsPerSecond(server, ca, hash);
      console.log(`issue (${name}): ${fmt(perSecond)} certificates/s end to end; raw crypto.sign: ${fmt(raw)}/s; ratio ${(perSecond / raw).toFixed(3)}`);
    }

    // 3. event-loop delay while 20 clients send wrong passwords
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    const wrong = `${server.credentials.username}:wrong-password`;
    const rps = await load(400, 20, async () => {
      const r = await call(`${server.apiRoot}/ca/`, { auth: wrong });
      if (r.status !== 401) throw new Error(`expected 401, got ${r.status}`);
    });
    histogram.disable();
    console.log(`wrong passwords (20 clients): ${fmt(rps)} req/s; event-loop delay p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms, max ${(histogram.max / 1e6).toFixed(1)} ms`);
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  await run('PGlite (embedded)', undefined);
  const pg = [process.env.DATABASE_URL, process.env.TEST_DATABASE_URL].find((u) => u && /^postgres(ql)?:\/\//i.test(u));
  if (pg) await run('PostgreSQL', pg);
  else console.log('\n(PostgreSQL skipped: set DATABASE_URL or TEST_DATABASE_URL to a postgres:// URL)');
  agent.destroy();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
