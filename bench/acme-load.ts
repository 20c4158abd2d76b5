/**
 * The ACME load client of bench/acme.ts, run as a child process (`fork`) so that its CPU does not
 * share the server's event loop and can be read on its own (bench/cpu.ts). It is what a fleet of
 * real ACME clients is, done cheaply: every request a raw JWS (ES256 account keys, RFC 8555 §6.2)
 * over a keep-alive agent (HTTPS trusting the CA file given at setup, or plain HTTP), the
 * `Replay-Nonce` of each answer used for the next request; its
 * own DNS (the test DNS server, test/helpers/dns-server.ts, which the server's validator asks: a name
 * gets its A record while its order is open) and its own http-01 responder (an HTTP server on a high
 * port answering the key authorizations of the open challenges).
 *
 * One order, closed loop per account: new-order (one fresh DNS name) → the authorization (POST-as-GET)
 * → the http-01 challenge (POST `{}`; the server answers once it has validated, else the client
 * polls the authorization) → finalize with a CSR for the name (a fresh P-256 key) → the order is
 * `valid` in the answer (else polled) → the certificate chain (POST-as-GET). An account that has
 * placed ORDERS_PER_ACCOUNT orders is replaced by a new one (new-account), as a fleet's clients come
 * and go: the servers' per-account order limits (300 per 3 hours by default, docs/guides/acme.md) are a
 * deployment's, and a bench run must not reach them.
 *
 * Every HTTP request is timed by its type (new-nonce, new-account, new-order, authz, challenge,
 * finalize, poll, certificate), from sent to the answer read whole; signing is not in it.
 *
 * IPC: the parent sends one message at a time and gets one answer (`{ ok: false, error }` on failure):
 * `setup` (with the PEM of the CA that the servers' TLS certificates chain to) → the DNS server's
 * address and the http-01 port; `accounts` → N accounts registered at a
 * directory; `run` → orders for `durationMs` (orders under way then finish and count), with each
 * order's duration and the time spent in each step.
 */
import { fork, type ChildProcess } from 'child_process';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'crypto';
import * as http from 'http';
import * as https from 'https';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { newKey, signJws, type WireKey } from '../test/helpers/acme-wire';
import { startDnsServer, type TestDnsServer } from '../test/helpers/dns-server';

/** The zone of the names ordered; a name is `{run}-{account}-{n}.acme-bench.test`. */
const ZONE = 'acme-bench.test';
export const ACME_STEPS = ['new-order', 'authorization', 'challenge', 'finalize', 'certificate'] as const;
export type AcmeStep = (typeof ACME_STEPS)[number];
/** The HTTP requests of an order, by type: `authz` is the first POST-as-GET of the authorization, `poll` every later read of it or of the order. */
export const ACME_REQUESTS = ['new-nonce', 'new-account', 'new-order', 'authz', 'challenge', 'finalize', 'poll', 'certificate'] as const;
export type AcmeRequest = (typeof ACME_REQUESTS)[number];
/** Orders an account places before the client replaces it with a new one (below the servers' default limit of 300 per 3 hours). */
export const ORDERS_PER_ACCOUNT = 250;

export type AcmeLoadJob =
  | { kind: 'setup'; caPem?: string; port80?: boolean }
  | { kind: 'accounts'; directory: string; clients: number; server: string }
  | { kind: 'run'; durationMs: number; server: string };

export interface AcmeSetup {
  /** `127.0.0.1:port` of the DNS server, for the validator's `dnsServers`. */
  dns: string;
  http01Port: number;
  /** When asked for: `listening` if the responder also answers on 127.0.0.1:80 (step-ca validates there), else why not. */
  port80?: string;
}

export interface AcmeRunFigures {
  orders: number;
  elapsedMs: number;
  /** ms of each order, new-order until the chain is read. */
  durations: number[];
  /** ms spent in each step, summed over the orders (a step's polls included). */
  stepMs: Record<AcmeStep, number>;
  /** ACME requests sent (POSTs, and new-nonce when no nonce was at hand). */
  requests: number;
  /** Polls: a challenge not valid in its answer, an order not valid after finalize. */
  polls: number;
  /** ms of each HTTP request, by type. */
  requestMs: Record<AcmeRequest, number[]>;
  /** Orders given up at a request left unanswered for ACME_STALL_SECONDS (a stalled server): one stalled request each. */
  stalled: number;
  /** Orders given up at any other error, and the first such error. */
  failed: number;
  firstError: string | null;
}

type Reply<T> = { ok: true; value: T } | { ok: false; error: string };

// ---------------------------------------------------------------- parent side

/** The child process, started on first use; one job at a time. */
export class AcmeLoader {
  private child: ChildProcess | null = null;

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * `caPem`: the CA the servers' TLS certificates chain to (for https:// directories); `port80`: let
   * the http-01 responder listen on 127.0.0.1:80 too, for a server that validates only there.
   */
  setup(caPem?: string, port80 = false): Promise<AcmeSetup> {
    return this.ask({ kind: 'setup', ...(caPem ? { caPem } : {}), port80 });
  }

  /**
   * `clients` accounts at `directory`, kept under the name `server` (one set per server, so that runs
   * on several servers can interleave); resolves with the times of the requests that made them.
   */
  accounts(directory: string, clients: number, server = 'default'): Promise<Record<AcmeRequest, number[]>> {
    return this.ask({ kind: 'accounts', directory, clients, server });
  }

  /** Orders for `durationMs` by the accounts of `server`. */
  run(durationMs: number, server = 'default'): Promise<AcmeRunFigures> {
    return this.ask({ kind: 'run', durationMs, server });
  }

  exit(): void {
    this.child?.send('exit');
  }

  private ask<T>(job: AcmeLoadJob): Promise<T> {
    if (!this.child) {
      const compiled = __filename.endsWith('.js');
      this.child = fork(path.join(__dirname, compiled ? 'acme-load.js' : 'acme-load.ts'), [], {
        execArgv: compiled ? [] : ['-r', 'ts-node/register/transpile-only'],
      });
    }
    const child = this.child;
    return new Promise((resolve, reject) => {
      child.once('message', (reply: Reply<T>) => (reply.ok ? resolve(reply.value) : reject(new Error(reply.error))));
      child.send(job);
    });
  }
}

// ---------------------------------------------------------------- child side

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
/** Made at setup: trusts the CA given then, and only it (no global NODE_TLS_REJECT_UNAUTHORIZED). */
let tlsAgent: https.Agent | null = null;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

let requests = 0;
let requestMs = emptyRequestTimes();
/**
 * A request unanswered this long (ACME_STALL_SECONDS, default 10) gives up its order, which counts as
 * stalled (pebble 2.4 sometimes stopped answering under load): no endless wait, and no lost run.
 */
const REQUEST_TIMEOUT_MS = Number(process.env.ACME_STALL_SECONDS ?? 10) * 1000;
const STALLED = 'no answer in';

function emptyRequestTimes(): Record<AcmeRequest, number[]> {
  return Object.fromEntries(ACME_REQUESTS.map((r) => [r, []])) as unknown as Record<AcmeRequest, number[]>;
}

function request(url: string, method: 'POST' | 'HEAD' | 'GET', type: AcmeRequest | null, body?: string): Promise<Answer> {
  requests++;
  const t0 = process.hrtime.bigint();
  const secure = url.startsWith('https:');
  if (secure && !tlsAgent) throw new Error(`${url}: an https:// server, but setup was given no CA file to trust`);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (body !== undefined) {
      headers['Content-Type'] = 'application/jose+json';
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    const answered = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (type) requestMs[type].push(Number(process.hrtime.bigint() - t0) / 1e6);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    };
    const req = secure
      ? https.request(url, { method, agent: tlsAgent!, headers }, answered)
      : http.request(url, { method, agent, headers }, answered);
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${url}: ${STALLED} ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** RFC 7638 thumbprint of an EC P-256 JWK: the key authorization's second half (RFC 8555 §8.1). */
function thumbprint(jwk: Record<string, string>): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** A server's directory and the accounts the client holds there. */
type ServerAccounts = { directory: Record<string, string>; accounts: Account[] };

class Account {
  kid: string | null = null;
  /** Orders placed with it. */
  orders = 0;
  private nonce: string | null = null;
  readonly thumbprint: string;

  constructor(
    private readonly directory: Record<string, string>,
    readonly key: WireKey = newKey('ec'),
  ) {
    this.thumbprint = thumbprint(key.jwk);
  }

  /** A signed POST (`payload` undefined: POST-as-GET); a `badNonce` answer is sent again once with its fresh nonce. */
  async post(url: string, payload: unknown, type: AcmeRequest): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      let nonce = this.nonce;
      this.nonce = null;
      if (!nonce) nonce = (await request(this.directory.newNonce, 'HEAD', 'new-nonce')).headers['replay-nonce'] as string;
      const header: Record<string, unknown> = { nonce, url };
      if (this.kid) header.kid = this.kid;
      else header.jwk = this.key.jwk;
      const answer = await request(url, 'POST', type, JSON.stringify(signJws(this.key, header, payload)));
      this.nonce = (answer.headers['replay-nonce'] as string | undefined) ?? null;
      if (answer.status === 400 && attempt === 0 && answer.text.includes(':badNonce')) continue;
      return answer;
    }
  }
}

function json<T>(answer: Answer, expected: number, what: string): T {
  if (answer.status !== expected) throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as T;
}

// DER, just enough for a PKCS#10 request (RFC 2986) with a common name and a subjectAltName.
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}
const OID_CN = Buffer.from('0603550403', 'hex');
const OID_EXTENSION_REQUEST = Buffer.from('06092a864886f70d01090e', 'hex');
const OID_SAN = Buffer.from('0603551d11', 'hex');
const ECDSA_SHA256 = der(0x30, Buffer.from('06082a8648ce3d040302', 'hex'));

/** base64url DER of a CSR for `name` (CN and the one dNSName), with a fresh P-256 key, as clients make one per certificate. */
function csrFor(name: string): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const subject = der(0x30, der(0x31, der(0x30, OID_CN, der(0x0c, Buffer.from(name)))));
  const san = der(0x30, der(0x82, Buffer.from(name)));
  const extensions = der(0x30, der(0x30, OID_SAN, der(0x04, san)));
  const attributes = der(0xa0, der(0x30, OID_EXTENSION_REQUEST, der(0x31, extensions)));
  const info = der(0x30, Buffer.from('020100', 'hex'), subject, publicKey.export({ type: 'spki', format: 'der' }), attributes);
  const signature = sign('sha256', info, privateKey as KeyObject);
  return der(0x30, info, ECDSA_SHA256, der(0x03, Buffer.from([0]), signature)).toString('base64url');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a poll waits (a bench client does not honour `Retry-After: 1`, which would measure the header). */
const POLL_MS = 20;
const MAX_POLLS = 1000;

class Loader {
  private dns!: TestDnsServer;
  private readonly http01 = new Map<string, string>();
  private responder!: http.Server;
  private responder80: http.Server | null = null;
  private readonly servers = new Map<string, ServerAccounts>();
  private readonly run = Date.now().toString(36);
  private sequence = 0;
  private polls = 0;

  async setup(caPem?: string, port80 = false): Promise<AcmeSetup> {
    if (caPem) tlsAgent = new https.Agent({ keepAlive: true, maxSockets: 256, ca: caPem });
    this.dns = await startDnsServer({ zones: [ZONE] });
    const respond = (req: http.IncomingMessage, res: http.ServerResponse) => {
      const answer = this.http01.get((req.url ?? '').replace('/.well-known/acme-challenge/', ''));
      res.statusCode = answer ? 200 : 404;
      res.end(answer ?? 'not found');
    };
    const listen = (server: http.Server, port: number) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
    this.responder = http.createServer(respond);
    await listen(this.responder, 0);
    const setup: AcmeSetup = { dns: this.dns.address, http01Port: (this.responder.address() as AddressInfo).port };
    if (port80) {
      const server = http.createServer(respond);
      setup.port80 = await listen(server, 80).then(
        () => ((this.responder80 = server), 'listening'),
        (e: unknown) => String((e as Error).message ?? e),
      );
    }
    return setup;
  }

  async makeAccounts(directoryUrl: string, clients: number, server: string): Promise<Record<AcmeRequest, number[]>> {
    requestMs = emptyRequestTimes();
    const answer = await request(directoryUrl, 'GET', null);
    if (answer.status !== 200) throw new Error(`directory ${directoryUrl}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
    const directory = JSON.parse(answer.text) as Record<string, string>;
    this.servers.set(server, { directory, accounts: await Promise.all(Array.from({ length: clients }, () => this.newAccount(directory))) });
    return requestMs;
  }

  private async newAccount(directory: Record<string, string>): Promise<Account> {
    const account = new Account(directory);
    const created = await account.post(directory.newAccount, { termsOfServiceAgreed: true }, 'new-account');
    if (created.status !== 201) throw new Error(`new-account: HTTP ${created.status} ${created.text}`);
    account.kid = created.headers.location as string;
    return account;
  }

  async runFor(durationMs: number, server: string): Promise<AcmeRunFigures> {
    const at = this.servers.get(server);
    if (!at) throw new Error(`no accounts at ${server}: send an accounts job first`);
    const stepMs = Object.fromEntries(ACME_STEPS.map((s) => [s, 0])) as Record<AcmeStep, number>;
    const durations: number[] = [];
    requests = 0;
    requestMs = emptyRequestTimes();
    this.polls = 0;
    let [stalled, failed, firstError] = [0, 0, null as string | null];
    const start = process.hrtime.bigint();
    const end = Date.now() + durationMs;
    await Promise.all(
      at.accounts.map(async (_, i) => {
        while (Date.now() < end) {
          const t0 = process.hrtime.bigint();
          try {
            // A spent account is replaced within the order's time, as a new client's first order would include it.
            if (at.accounts[i].orders >= ORDERS_PER_ACCOUNT) at.accounts[i] = await this.newAccount(at.directory);
            await this.order(at.accounts[i], at.directory, i, stepMs);
            durations.push(Number(process.hrtime.bigint() - t0) / 1e6);
          } catch (e) {
            const message = String((e as Error)?.message ?? e);
            if (message.includes(STALLED)) stalled++;
            else [failed, firstError] = [failed + 1, firstError ?? message];
          }
        }
      }),
    );
    const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
    return { orders: durations.length, elapsedMs, durations, stepMs, requests, polls: this.polls, requestMs, stalled, failed, firstError };
  }

  /** One order, from new-order to the certificate chain. */
  private async order(account: Account, directory: Record<string, string>, index: number, stepMs: Record<AcmeStep, number>): Promise<void> {
    let mark = process.hrtime.bigint();
    const step = (name: AcmeStep) => {
      const now = process.hrtime.bigint();
      stepMs[name] += Number(now - mark) / 1e6;
      mark = now;
    };
    const name = `${this.run}-${index}-${this.sequence++}.${ZONE}`;
    this.dns.setA(name, ['127.0.0.1']);
    let token = '';
    try {
      account.orders++;
      const created = await account.post(directory.newOrder, { identifiers: [{ type: 'dns', value: name }] }, 'new-order');
      const order = json<{ authorizations: string[]; finalize: string }>(created, 201, 'new-order');
      const orderUrl = created.headers.location as string;
      step('new-order');

      const authz = json<{ challenges: { type: string; url: string; token: string }[] }>(
        await account.post(order.authorizations[0], undefined, 'authz'),
        200,
        'authorization',
      );
      const http01 = authz.challenges.find((c) => c.type === 'http-01');
      if (!http01) throw new Error('authorization: no http-01 challenge');
      token = http01.token;
      this.http01.set(token, `${token}.${account.thumbprint}`);
      step('authorization');

      let status = json<{ status: string }>(await account.post(http01.url, {}, 'challenge'), 200, 'challenge').status;
      for (let polls = 0; status === 'pending' || status === 'processing'; polls++) {
        if (polls >= MAX_POLLS) throw new Error('challenge: still not validated');
        this.polls++;
        await sleep(POLL_MS);
        status = json<{ status: string }>(await account.post(order.authorizations[0], undefined, 'poll'), 200, 'authorization').status;
      }
      if (status !== 'valid') throw new Error(`challenge: ${status}`);
      step('challenge');

      let finalized = json<{ status: string; certificate?: string; error?: unknown }>(
        await account.post(order.finalize, { csr: csrFor(name) }, 'finalize'),
        200,
        'finalize',
      );
      for (let polls = 0; finalized.status === 'processing'; polls++) {
        if (polls >= MAX_POLLS) throw new Error('finalize: still processing');
        this.polls++;
        await sleep(POLL_MS);
        finalized = json(await account.post(orderUrl, undefined, 'poll'), 200, 'order');
      }
      if (finalized.status !== 'valid' || !finalized.certificate) throw new Error(`finalize: ${JSON.stringify(finalized)}`);
      step('finalize');

      const chain = await account.post(finalized.certificate, undefined, 'certificate');
      if (chain.status !== 200 || !chain.text.startsWith('-----BEGIN CERTIFICATE-----')) {
        throw new Error(`certificate: HTTP ${chain.status} ${chain.text.slice(0, 300)}`);
      }
      step('certificate');
    } finally {
      this.http01.delete(token);
      this.dns.clear(name);
    }
  }

  async close(): Promise<void> {
    agent.destroy();
    tlsAgent?.destroy();
    this.responder?.closeAllConnections();
    this.responder80?.closeAllConnections();
    this.responder80?.close();
    await new Promise((r) => this.responder?.close(r) ?? r(undefined));
    await this.dns?.close();
  }
}

if (require.main === module) {
  const loader = new Loader();
  process.on('message', (job: AcmeLoadJob | 'exit') => {
    if (job === 'exit') {
      void loader.close().finally(() => process.disconnect?.());
      return;
    }
    const work: Promise<unknown> =
      job.kind === 'setup'
        ? loader.setup(job.caPem, job.port80)
        : job.kind === 'accounts'
          ? loader.makeAccounts(job.directory, job.clients, job.server)
          : loader.runFor(job.durationMs, job.server);
    work.then(
      (value) => process.send?.({ ok: true, value } satisfies Reply<unknown>),
      (e: unknown) => process.send?.({ ok: false, error: String((e as Error)?.stack ?? e) } satisfies Reply<unknown>),
    );
  });
}
