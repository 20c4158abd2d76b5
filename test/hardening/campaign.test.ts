/**
 * The hostile-input campaign (issue 15): ≥ 20,000 generated requests (test/hardening/campaign-*.ts:
 * schema-driven valid, almost-valid and hostile requests for every endpoint) against the router over
 * a real HTTP server with keep-alive, on PGlite. Every answer must be a JSON 4xx, a JSON redirect or
 * a 2xx that matches the OpenAPI document; never a 5xx, never a hang; and a rejected request changes
 * no row (a fingerprint of every table — its row count and newest row version — compared before and
 * after). At the end every accepted order exists exactly once.
 *
 * The seed is printed; `CAMPAIGN_SEED=<n>` replays a run, `CAMPAIGN_RUNS=<n>` changes its length.
 */
import fc from 'fast-check';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as forge from 'node-forge';
import request from 'supertest';
import { loginAttemptLimiter } from '../../adapters/auth/login-limiter';
import { TABLES } from '../../adapters/store/knex/tables';
import { answerClientErrorsAsJson } from '../../lib';
import { API, opensslCsr, PASSWORD, setupApi, waitForOrder, type ApiFixture } from '../api/fixture';
import { idleOrderRunner } from '../helpers/http';
import { takeViolations } from '../helpers/response-validator';
import { campaignRequest, type CampaignContext, type CampaignRequest } from './campaign-requests';

const RUNS = Number(process.env.CAMPAIGN_RUNS ?? 20_000);
const SEED = process.env.CAMPAIGN_SEED ? Number(process.env.CAMPAIGN_SEED) : Math.floor(Math.random() * 2 ** 31);
const BATCH = 500;
const REQUEST_TIMEOUT_MS = 20_000;

let f: ApiFixture;
let server: http.Server;
let port: number;
let ctx: CampaignContext;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  // Orders are accepted but not processed during the run, so that only requests change rows.
  f = await setupApi(undefined, {
    orderRunner: idleOrderRunner(),
    orderWaitMs: 0,
    loginLimiter: loginAttemptLimiter({ maxFailuresPerUser: 1e9, maxFailuresPerAddress: 1e9 }),
  });
  const csrs = [opensslCsr('EC').csr, opensslCsr('RSA').csr, opensslCsr('Ed25519').csr];

  // Certificates to resign and revoke, issued by the fixture's runner before the run.
  await f.runner.start();
  const certSerials: string[] = [];
  const slugs: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/sign/`)
      .set(f.auth('alice'))
      .send({ csr: csrs[i % 3], subject: [{ oid: 'CN', value: `seed${i}.example.com` }] });
    expect(res.status).toBe(200);
    slugs.push(res.body.slug);
    const done = await waitForOrder(f.app, f.ca.serial, res.body.slug, f.auth('alice'));
    expect(done.status).toBe('issued');
    certSerials.push(done.serial as string);
  }
  await f.runner.stop();

  ctx = { caSerial: f.ca.serial, rootSerial: f.root.serial, certSerials, slugs, csrs, badCsrs: badCsrs(csrs[0]), password: PASSWORD };
  // As a host app should (docs/operations/hostile-clients-and-outages.md "Errors the HTTP server answers"): Node's own 431/400 in JSON too.
  server = answerClientErrorsAsJson(http.createServer(f.app));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}, 120_000);

afterAll(async () => {
  agent.destroy();
  await new Promise((resolve) => server?.close(resolve));
  await f?.close();
});

/** A tampered signature, a CSR whose public key was swapped for another's, bare DER, a certificate. */
function badCsrs(csr: string): string[] {
  const der = Buffer.from(csr.replace(/-----[A-Z ]+-----/g, '').replace(/\s/g, ''), 'base64');
  const tampered = Buffer.from(der);
  tampered[tampered.length - 2] ^= 0x01;
  const pem = (b: Buffer, label = 'CERTIFICATE REQUEST') =>
    `-----BEGIN ${label}-----\n${b.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
  // Made with node-forge: a CSR for one key signed by another (mismatched), and one with a 512-bit RSA key.
  const one = forge.pki.rsa.generateKeyPair({ bits: 1024, e: 0x10001 });
  const two = forge.pki.rsa.generateKeyPair({ bits: 512, e: 0x10001 });
  const forgeCsr = (publicKey: forge.pki.PublicKey, signer: forge.pki.PrivateKey) => {
    const c = forge.pki.createCertificationRequest();
    c.publicKey = publicKey;
    c.setSubject([{ name: 'commonName', value: 'forge.example.com' }]);
    c.sign(signer as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
    return forge.pki.certificationRequestToPem(c);
  };
  return [
    pem(tampered),
    forgeCsr(one.publicKey, two.privateKey),
    forgeCsr(two.publicKey, two.privateKey),
    pem(der, 'CERTIFICATE'),
    der.toString('base64'),
    csr.replace(/\n/g, '\r\n'),
    csr.replace('-----END CERTIFICATE REQUEST-----', '-----END CERTIFICATE REQUEST----- trailing'),
    pem(der.subarray(0, der.length >> 1)),
    `${csr}${csr}`,
  ];
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Send one request over the keep-alive agent; rejects when no answer comes within the timeout. */
function send(req: CampaignRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body && !req.chunked) headers['Content-Length'] = req.body.length;
    const r = http.request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    r.setTimeout(REQUEST_TIMEOUT_MS, () => r.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    r.on('error', reject);
    if (req.body && req.chunked) {
      const half = req.body.length >> 1;
      r.write(req.body.subarray(0, half));
      r.end(req.body.subarray(half));
    } else r.end(req.body);
  });
}

/**
 * What a rejected request must leave as it found it: every table, cheaply. The tables are compared
 * only when a statement that may write ran since the last comparison (anything but a plain SELECT,
 * seen through knex's `query` event: the router's every statement goes through `f.db.knex`).
 */
let fingerprintMs = 0;
let mayHaveWritten = true;
function watchWrites(): void {
  f.db.knex.on('query', (q: { sql?: string }) => {
    const sql = q.sql ?? '';
    if (!/^\s*select\b/i.test(sql) || /\b(insert|update|delete|merge)\b/i.test(sql)) mayHaveWritten = true;
  });
}

async function fingerprint(): Promise<string> {
  const t0 = Date.now();
  mayHaveWritten = false;
  try {
    return await fingerprintNow();
  } finally {
    fingerprintMs += Date.now() - t0;
  }
}

/** `state` if no statement could have written since it was taken, else a new fingerprint. */
function fingerprintSince(state: string): Promise<string> {
  return mayHaveWritten ? fingerprint() : Promise.resolve(state);
}

/**
 * Every committed insert or update writes a row version stamped with its transaction (`xmin`), newer
 * than every version before it, and a delete lowers the count: so the count and the newest `xmin`
 * of each table change whenever its contents do — without reading the rows' contents (PostgreSQL's
 * MVCC, docs "System Columns"). A row changed and changed back still shows: its version is new.
 */
async function fingerprintNow(): Promise<string> {
  const tables = [
    TABLES.cas,
    TABLES.certificates,
    TABLES.users,
    TABLES.permissions,
    TABLES.watchers,
    TABLES.certificateWatchers,
    TABLES.orders,
  ];
  const parts = tables.map((t) => `(select count(*) || ':' || coalesce(max(xmin::text::bigint), 0) from ${t})`);
  const result = await f.db.knex.raw(`select ${parts.map((p, i) => `${p} as f${i}`).join(', ')}`);
  return JSON.stringify(result.rows ?? result);
}

interface Finding {
  index: number;
  kind: string;
  request: string;
  problem: string;
}

const describeRequest = (r: CampaignRequest): string =>
  `${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers).slice(0, 200)} ${(r.body ?? Buffer.alloc(0)).toString('utf8').slice(0, 300)}`;

function judge(req: CampaignRequest, answer: Answer): string | null {
  if (answer.status >= 500) return `${answer.status}: ${answer.body.slice(0, 300)}`;
  if (![200, 301, 308].includes(answer.status) && !(answer.status >= 400 && answer.status < 500))
    return `unexpected status ${answer.status}`;
  if (req.method === 'HEAD') return null; // no body by definition
  if (!answer.contentType.startsWith('application/json')) return `${answer.status} with Content-Type ${answer.contentType}`;
  try {
    JSON.parse(answer.body);
  } catch {
    return `${answer.status} with a body that is not JSON: ${answer.body.slice(0, 100)}`;
  }
  return null;
}

test(`campaign: ${RUNS} generated requests, no 5xx, no hang, no row changed by a rejected request`, async () => {
  console.log(`hostile-input campaign: seed ${SEED}, ${RUNS} requests (replay: CAMPAIGN_SEED=${SEED})`);
  const findings: Finding[] = [];
  const statuses = new Map<string, number>();
  const ordersBefore = Number((await f.db.knex(TABLES.orders).count({ n: '*' }))[0].n);
  let acceptedOrders = 0;
  watchWrites();
  // The fingerprint sees a change that keeps every count and id (a control: else a rejected request that rewrote a row would pass).
  const unchanged = await fingerprint();
  await f.db.knex(TABLES.users).where({ username: 'alice' }).update({ updated: new Date() });
  expect(await fingerprint()).not.toBe(unchanged);
  let state = await fingerprint();
  const started = Date.now();
  const arb = campaignRequest(ctx);

  for (let done = 0; done < RUNS; done += BATCH) {
    const batch = fc.sample(arb, { seed: SEED + done, numRuns: Math.min(BATCH, RUNS - done) });
    for (const [i, req] of batch.entries()) {
      const index = done + i;
      const finding = (problem: string) => findings.push({ index, kind: req.kind, request: describeRequest(req), problem });
      let answer: Answer;
      try {
        answer = await send(req);
      } catch (e) {
        finding(`no answer: ${(e as Error).message}`);
        continue;
      }
      const key = `${req.kind} ${answer.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      const problem = judge(req, answer);
      if (problem) finding(problem);
      for (const violation of takeViolations()) finding(`OpenAPI: ${violation}`);
      if (answer.status >= 400) {
        const after = await fingerprintSince(state);
        if (after !== state) {
          finding(`rejected with ${answer.status} but rows changed: ${answer.body.slice(0, 200)}`);
          state = after;
        }
      } else if (answer.status === 200 && req.method !== 'GET') {
        if (req.kind.startsWith('sign') || req.kind.startsWith('resign')) acceptedOrders++;
        state = await fingerprint();
      }
    }
  }

  const seconds = (Date.now() - started) / 1000;
  const summary = [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`);
  console.log(
    `campaign: ${RUNS} requests in ${seconds.toFixed(1)} s (${(RUNS / seconds).toFixed(0)}/s; ${(fingerprintMs / 1000).toFixed(1)} s of it comparing rows), seed ${SEED}\n${summary.join('\n')}`,
  );
  const ordersAfter = Number((await f.db.knex(TABLES.orders).count({ n: '*' }))[0].n);

  // The accepted orders are then processed: everything was validated before the order existed (D3),
  // so none may fail for a reason a request could have been refused for.
  const processing = Date.now();
  await f.runner.start();
  const deadline = Date.now() + 300_000;
  const pending = async () => Number((await f.db.knex(TABLES.orders).where({ status: 'pending' }).count({ n: '*' }))[0].n);
  while ((await pending()) > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
  }
  await f.runner.stop();
  const unfinished = await f.db.knex(TABLES.orders).whereNot({ status: 'issued' }).select('id', 'status', 'error');
  console.log(
    `campaign: ${ordersAfter - ordersBefore} accepted orders processed in ${((Date.now() - processing) / 1000).toFixed(1)} s; not issued: ${unfinished.length}`,
  );
  for (const o of unfinished) findings.push({ index: -1, kind: 'order', request: `order ${o.id}`, problem: `${o.status}: ${o.error}` });
  if (findings.length)
    console.log(
      `findings (seed ${SEED}):\n${findings
        .slice(0, 20)
        .map((x) => JSON.stringify(x))
        .join('\n')}`,
    );
  expect(findings.slice(0, 20)).toEqual([]);
  // Every accepted sign/resign created exactly one order; no rejected one did.
  expect(ordersAfter - ordersBefore).toBe(acceptedOrders);
}, 900_000);
