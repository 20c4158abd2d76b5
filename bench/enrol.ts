/**
 * Device enrolment benchmark (docs/guides/est.md, docs/guides/scep.md): the example server as users run it
 * (bench/example-server.ts: examples/host-server in a child process, HTTPS with TLS_CERT_FILE and
 * TLS_KEY_FILE, CA_ENABLE_EST, CA_ENABLE_SCEP with CA_SCEP_CHALLENGE) on PostgreSQL (a scratch
 * schema of BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL) and on PGlite. For each, with
 * CLIENTS concurrent keep-alive clients for ENROL_SECONDS each after a warm-up:
 *
 *  1. REST: POST sign then poll the order every POLL_MS until issued, as bench/api's example-server
 *     part does — the anchor EST is compared with (target: EST ≥ 0.7 × REST);
 *  2. EST: POST simpleenroll, a base64 P-256 CSR of its own per request, HTTP Basic (the demo user);
 *  3. SCEP: POST PKIOperation, a PKCSReq per request (RSA-2048 requester, self-signed certificate,
 *     its own CSR, transactionID and nonce) enveloped to the RA.
 *
 * Once per run, the same SCEP load against micromdm's `scepserver` (Debian's `scep` package) on
 * loopback with a file depot (RSA-2048 CA, made by `scepserver ca -init`) and the same challenge;
 * target: SCEP ≥ 2 × scepserver. Only SUCCESS CertReps and 200s count; one answer per server is
 * opened with openssl and must hold a certificate. Requests are built before the clock starts
 * (bench/enrol-requests.ts). The client runs in this process, the servers in their own: the CPU
 * printed is the server's (its process tree, plus PostgreSQL's backends).
 *
 *   npm run bench:enrol    (ENROL_SECONDS=8, CLIENTS=32, ENROL_DATABASES=postgres,pglite, POLL_MS=20)
 */
import { execFileSync, spawn } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { processCpuMs, processesCpuSince, processesCpuSnapshot, processTreeCpuMs } from './cpu';
import { estBodies, isSuccess, pkcsReqs, type Requester } from './enrol-requests';
import { startExampleServer, type ExampleServer } from './example-server';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';
import { makeTls } from './tls';

const CLIENTS = Number(process.env.CLIENTS ?? 32);
const SECONDS = Number(process.env.ENROL_SECONDS ?? 8);
const WARMUP_SECONDS = Number(process.env.ENROL_WARMUP_SECONDS ?? 2);
const POLL_MS = Number(process.env.POLL_MS ?? 20);
const DATABASES = (process.env.ENROL_DATABASES ?? 'postgres,pglite').split(',');
/** Requests built ahead per SCEP phase (a phase ends early when they run out: raise it on a fast machine). */
const SCEP_POOL = Number(process.env.ENROL_SCEP_REQUESTS ?? 5000);
const EST_POOL = Number(process.env.ENROL_EST_REQUESTS ?? 9000);
const CHALLENGE = crypto.randomBytes(12).toString('hex');

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 1) : 'n/a');

interface Answer {
  status: number;
  body: Buffer;
}

function request(agent: http.Agent, url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? https.request : http.request;
    const req = send(url, { method, agent, headers: body ? { ...headers, 'Content-Length': String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Phase {
  perSecond: number;
  p50: number;
  p95: number;
  /** Cores the server kept busy (its CPU ms / wall ms). */
  serverCores: number;
  count: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : Number.NaN;

/**
 * CLIENTS closed loops running `one(i)` with i the next unused index, for `seconds` or until
 * `limit` is reached; `one` resolves true for a certificate. `serverCpu` reads the server's CPU ms.
 */
async function load(
  seconds: number,
  limit: number,
  one: (i: number) => Promise<boolean>,
  serverCpu: () => number,
  warmup = false,
): Promise<Phase> {
  let next = 0;
  const durations: number[] = [];
  const cpuBefore = serverCpu();
  const start = process.hrtime.bigint();
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < end && next < limit) {
        const i = next++;
        const t0 = process.hrtime.bigint();
        if (await one(i)) durations.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = serverCpu() - cpuBefore;
  if (!warmup && next >= limit && Date.now() < end)
    console.log(`  (the ${limit} requests built ahead ran out before ${seconds} s: raise the pool)`);
  const sorted = durations.sort((a, b) => a - b);
  return {
    perSecond: durations.length / (wallMs / 1000),
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    serverCores: cpu / wallMs,
    count: durations.length,
  };
}

const print = (name: string, phase: Phase, extra = '') =>
  console.log(
    `${name}: ${fmt(phase.perSecond)} certs/s (${phase.count} in ${SECONDS} s, ${CLIENTS} clients), p50 ${fmt(phase.p50)} ms, p95 ${fmt(phase.p95)} ms, server ${phase.serverCores.toFixed(2)} cores${extra}`,
  );

/** The RSA-2048 requester: a key and a self-signed certificate made by openssl (its files stay in `dir`, to open answers). */
function makeRequester(dir: string): Requester & { keyFile: string; certFile: string } {
  const keyFile = path.join(dir, 'requester.key');
  const certFile = path.join(dir, 'requester.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-subj', '/CN=bench requester', '-days', '1', '-out', certFile],
    {
      stdio: 'pipe',
    },
  );
  const certDer = execFileSync('openssl', ['x509', '-in', certFile, '-outform', 'DER']);
  return { key: crypto.createPrivateKey(fs.readFileSync(keyFile)), certDer, keyFile, certFile };
}

/** Certificates (PEM) in a SUCCESS CertRep, opened by openssl with the requester's key: proof the answers are real. */
function certificatesOfCertRep(dir: string, der: Buffer, requester: { keyFile: string; certFile: string }): string[] {
  const openssl = (args: string[], input: Buffer) => execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });
  const content = openssl(['cms', '-verify', '-inform', 'DER', '-noverify', '-binary'], der);
  // scepserver encrypts to the requester with single DES, which OpenSSL 3 keeps in its legacy provider.
  const providers = ['-provider', 'default', '-provider', 'legacy'];
  const bag = openssl(
    ['cms', '-decrypt', ...providers, '-inform', 'DER', '-binary', '-recip', requester.certFile, '-inkey', requester.keyFile],
    content,
  );
  return certificatesOfPkcs7(bag);
}

function certificatesOfPkcs7(der: Buffer): string[] {
  const pem = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], {
    input: der,
    stdio: ['pipe', 'pipe', 'pipe'],
  }).toString();
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** SCEP load (warm-up, then measured) against `url` with requests built for `recipientDer`; one answer opened. */
async function measureScep(
  name: string,
  makeAgent: http.Agent | (() => http.Agent),
  url: string,
  recipientDer: Buffer,
  requester: Requester & { keyFile: string; certFile: string },
  dir: string,
  serverCpu: () => number,
): Promise<Phase> {
  const prefix = `${name.replace(/\W+/g, '-')}-${crypto.randomBytes(3).toString('hex')}`;
  const bodies = pkcsReqs(SCEP_POOL, prefix, requester, recipientDer, CHALLENGE);
  const agent = typeof makeAgent === 'function' ? makeAgent() : makeAgent;
  const headers = { 'Content-Type': 'application/x-pki-message' };
  let sample: Buffer | null = null;
  let failures = 0;
  const one = async (i: number) => {
    const answer = await request(agent, url, 'POST', headers, bodies[i]);
    if (answer.status === 200 && isSuccess(answer.body)) {
      sample ??= answer.body;
      return true;
    }
    if (failures++ === 0) console.log(`  ${name}: a request was not granted (HTTP ${answer.status}, ${answer.body.length} bytes)`);
    return false;
  };
  const warmup = Math.floor(SCEP_POOL / 10);
  await load(WARMUP_SECONDS, warmup, one, serverCpu, true);
  const phase = await load(SECONDS, SCEP_POOL - warmup, (i) => one(i + warmup), serverCpu);
  if (!sample) throw new Error(`${name}: no SUCCESS CertRep`);
  const certs = certificatesOfCertRep(dir, sample, requester);
  if (certs.length === 0) throw new Error(`${name}: a SUCCESS CertRep without a certificate`);
  print(name, phase, failures ? `; ${failures} not granted` : '');
  return phase;
}

interface DatabaseFigures {
  rest: Phase;
  est: Phase;
  scep: Phase;
}

async function runOurs(
  label: string,
  databaseUrl: string | null,
  tls: ReturnType<typeof makeTls>,
  requester: Requester & { keyFile: string; certFile: string },
  dir: string,
): Promise<DatabaseFigures> {
  const dataDir = fs.mkdtempSync(path.join(dir, 'data-'));
  const server: ExampleServer = await startExampleServer(
    {
      CA_DATA_DIR: dataDir,
      CA_KEY_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
      CA_ENABLE_EST: 'true',
      CA_ENABLE_SCEP: 'true',
      CA_SCEP_CHALLENGE: CHALLENGE,
    },
    dataDir,
  );
  // A fresh pool of keep-alive connections per phase: building the next phase's requests takes longer
  // than the server keeps an idle connection, and a request on one it is closing just then hangs up.
  const tlsCa = fs.readFileSync(tls.caFile);
  const agents: https.Agent[] = [];
  const freshAgent = () => {
    agents.forEach((a) => a.destroy());
    agents.push(new https.Agent({ keepAlive: true, maxSockets: 256, ca: tlsCa }));
    return agents[agents.length - 1];
  };
  let agent = freshAgent();
  try {
    console.log(`\n== example server, ${label}`);
    const postgres = processesCpuSnapshot('postgres');
    // The server's process tree, plus what PostgreSQL's backends spent (0 on PGlite: its thread is the server's).
    const serverCpu = () => processTreeCpuMs(server.pid) + (databaseUrl ? processesCpuSince(postgres, 'postgres') : 0);
    const origin = new URL(server.apiRoot).origin;
    const basic = { Authorization: `Basic ${Buffer.from(server.auth).toString('base64')}` };

    // 1. REST: sign, then poll the order (bench/api's example-server part).
    const json = { ...basic, 'Content-Type': 'application/json' };
    const restCsrs = estBodies(EST_POOL, `rest-${label}`).map((b) =>
      Buffer.from(
        JSON.stringify({ csr: derToPem(Buffer.from(b.toString(), 'base64')), subject: [{ oid: 'CN', value: 'bench.example.com' }] }),
      ),
    );
    const signUrl = `${server.apiRoot}/ca/${server.caSerial}/sign/`;
    const restOne = async (i: number) => {
      const signed = await request(agent, signUrl, 'POST', json, restCsrs[i]);
      if (signed.status !== 200) throw new Error(`sign: ${signed.status} ${signed.body.toString()}`);
      const slug = (JSON.parse(signed.body.toString()) as { slug: string }).slug;
      for (let poll = 0; poll < 1000; poll++) {
        const order = JSON.parse(
          (await request(agent, `${server.apiRoot}/ca/${server.caSerial}/orders/${slug}/`, 'GET', basic)).body.toString(),
        ) as {
          status: string;
          error: string;
        };
        if (order.status === 'issued') return true;
        if (order.status === 'failed') throw new Error(`order failed: ${order.error}`);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      throw new Error('order not issued');
    };
    const warmRest = Math.floor(EST_POOL / 10);
    await load(WARMUP_SECONDS, warmRest, restOne, serverCpu, true);
    const rest = await load(SECONDS, EST_POOL - warmRest, (i) => restOne(i + warmRest), serverCpu);
    print('REST sign + poll', rest, ` (poll every ${POLL_MS} ms)`);

    // 2. EST simpleenroll.
    const estBodiesPool = estBodies(EST_POOL, `est-${label}`);
    agent = freshAgent();
    const estUrl = `${origin}/.well-known/est/simpleenroll`;
    const estHeaders = { ...basic, 'Content-Type': 'application/pkcs10', 'Content-Transfer-Encoding': 'base64' };
    let estSample: Buffer | null = null;
    const estOne = async (i: number) => {
      const answer = await request(agent, estUrl, 'POST', estHeaders, estBodiesPool[i]);
      if (answer.status !== 200) throw new Error(`simpleenroll: ${answer.status} ${answer.body.toString().slice(0, 300)}`);
      estSample ??= answer.body;
      return true;
    };
    await load(WARMUP_SECONDS, warmRest, estOne, serverCpu, true);
    const est = await load(SECONDS, EST_POOL - warmRest, (i) => estOne(i + warmRest), serverCpu);
    if (!estSample || certificatesOfPkcs7(Buffer.from((estSample as Buffer).toString(), 'base64')).length !== 1)
      throw new Error('simpleenroll answered no certificate');
    print('EST simpleenroll', est, `; EST / REST ${(est.perSecond / rest.perSecond).toFixed(2)} (target >= 0.7)`);

    // 3. SCEP PKCSReq, enveloped to the RA (the first certificate of GetCACert, docs/guides/scep.md).
    const scepUrl = `${server.apiRoot.replace(/\/api$/, '/scep')}`;
    const caCert = await request(freshAgent(), `${scepUrl}?operation=GetCACert`, 'GET', {});
    if (caCert.status !== 200) throw new Error(`GetCACert: ${caCert.status}`);
    const raPem = certificatesOfPkcs7(caCert.body)[0];
    const raDer = Buffer.from(raPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const scep = await measureScep('SCEP PKCSReq', freshAgent, `${scepUrl}?operation=PKIOperation`, raDer, requester, dir, serverCpu);
    return { rest, est, scep };
  } finally {
    agents.forEach((a) => a.destroy());
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function derToPem(der: Buffer): string {
  return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE REQUEST-----\n`.replace(
    /\n\n/g,
    '\n',
  );
}

/** micromdm's scepserver on loopback with a fresh file depot (RSA-2048 CA), the same challenge. */
async function runScepserver(requester: Requester & { keyFile: string; certFile: string }, dir: string): Promise<Phase> {
  const depot = path.join(dir, 'depot');
  execFileSync('scepserver', ['ca', '-init', '-depot', depot, '-keySize', '2048', '-organization', 'bench'], { stdio: 'pipe' });
  const port = await freePort();
  const log = fs.openSync(path.join(dir, 'scepserver.log'), 'w');
  const child = spawn('scepserver', ['-depot', depot, '-port', String(port), '-challenge', CHALLENGE], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const exited = new Promise((r) => child.once('exit', r));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  try {
    const url = `http://127.0.0.1:${port}/scep`;
    for (let i = 0; ; i++) {
      const ok = await request(agent, `${url}?operation=GetCACaps`, 'GET', {}).then(
        (a) => a.status === 200,
        () => false,
      );
      if (ok) break;
      if (i > 100 || child.exitCode !== null)
        throw new Error(`scepserver did not start: ${fs.readFileSync(path.join(dir, 'scepserver.log'), 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`\n== micromdm scepserver (Debian scep), file depot, 127.0.0.1:${port}`);
    const caDer = execFileSync('openssl', ['x509', '-in', path.join(depot, 'ca.pem'), '-outform', 'DER']);
    return await measureScep('scepserver PKCSReq', agent, `${url}?operation=PKIOperation`, caDer, requester, dir, () =>
      processCpuMs(child.pid!),
    );
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await exited;
    // Why scepserver refused some requests (it answers FAILURE with HTTP 200), from its log.
    const errors = fs
      .readFileSync(path.join(dir, 'scepserver.log'), 'utf8')
      .split('\n')
      .filter((l) => /err=/.test(l) && !/err=null/.test(l));
    if (errors.length) console.log(`  scepserver logged ${errors.length} errors, e.g. ${errors[0].slice(0, 300)}`);
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-enrol-'));
  try {
    const [load1] = os.loadavg();
    console.log(`enrol bench: ${os.cpus().length} cores, load average ${load1.toFixed(2)}; ${CLIENTS} clients, ${SECONDS} s per phase`);
    const tls = makeTls(dir);
    const requester = makeRequester(dir);
    const figures: Partial<Record<'postgres' | 'pglite', DatabaseFigures>> = {};
    const pgUrl = benchPostgresUrl();
    for (const database of DATABASES) {
      if (database === 'postgres') {
        if (!pgUrl) {
          console.log('\n(PostgreSQL skipped: no BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL)');
          continue;
        }
        await withScratchSchema(pgUrl, async (url) => {
          figures.postgres = await runOurs('PostgreSQL', url, tls, requester, dir);
        });
      } else if (database === 'pglite') {
        figures.pglite = await runOurs('PGlite', null, tls, requester, dir);
      }
    }
    const anchor = await runScepserver(requester, dir);
    console.log('');
    for (const [name, f] of Object.entries(figures)) {
      console.log(
        `${name}: EST / REST ${(f.est.perSecond / f.rest.perSecond).toFixed(2)} (target >= 0.7: ${f.est.perSecond >= 0.7 * f.rest.perSecond ? 'met' : 'NOT met'}); SCEP / scepserver ${(f.scep.perSecond / anchor.perSecond).toFixed(2)} (target >= 2: ${f.scep.perSecond >= 2 * anchor.perSecond ? 'met' : 'NOT met'})`,
      );
    }
    // The summary: PostgreSQL's figures when it ran (what production runs), else PGlite's.
    const summary = figures.postgres ?? figures.pglite;
    if (!summary) throw new Error('no database ran');
    console.log(
      `enrol: est ${fmt(summary.est.perSecond)} certs/s, scep ${fmt(summary.scep.perSecond)} certs/s, scepserver ${fmt(anchor.perSecond)} certs/s, ratio ${(summary.scep.perSecond / anchor.perSecond).toFixed(2)}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
