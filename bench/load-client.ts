/**
 * The load generator of bench/api.ts, run as a child process (`fork`) so that the client's own CPU
 * (HTTP parsing, JSON) does not share the server's event loop. The parent sends one job at a time
 * over IPC and gets `{ ok: true, perSecond }` or `{ ok: false, error }` back.
 *
 * Jobs: `get` (GET `url`, expect 200), `issue` (POST sign then poll the order until issued), `wrong`
 * (GET `url` with wrong credentials, expect 401), `post` (POST a binary body, expect 200: OCSP),
 * `stream` (one GET whose body is counted and dropped: time to first byte, total time, bytes, lines).
 * Loops are bounded by `total`.
 */
import { fork, type ChildProcess } from 'child_process';
import * as http from 'http';
import * as path from 'path';

export type LoadJob =
  | { kind: 'get'; url: string; auth?: string; total: number; clients: number }
  | { kind: 'wrong'; url: string; auth: string; total: number; clients: number }
  | {
      kind: 'issue';
      targets: IssueTarget[];
      csr: string;
      total: number;
      clients: number;
      pollMs: number;
      /** When given, a time bound instead of a count: no new order starts after this many ms (bench/acme.ts). */
      durationMs?: number;
    }
  | { kind: 'post'; url: string; bodyBase64: string; contentType: string; total: number; clients: number };

/** Where `issue` clients send their orders: client i uses `targets[i % targets.length]` throughout. */
export interface IssueTarget {
  apiRoot: string;
  caSerial: string;
  /** `user:password`. */
  auth: string;
}

export interface StreamJob {
  kind: 'stream';
  url: string;
  /** `user:password` for Basic auth (the REST API), or */
  auth?: string;
  /** a Cookie header (the admin interface's session: bench/admin.ts). */
  cookie?: string;
}

export interface StreamFigures {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
  /** Line feeds in the body (a CSV's lines). */
  lines: number;
}

/** Milliseconds one operation took (an `issue`: POST sign until the order reads issued), by percentile. */
export interface Latency {
  p50: number;
  p95: number;
  p99: number;
}

export type LoadReply =
  { ok: true; perSecond: number; latency?: Latency; requestsPerOperation?: number; stream?: StreamFigures } | { ok: false; error: string };

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** Start this file as a child process: compiled (`npm run bench:api`) or through ts-node. */
export function forkLoadClient(): ChildProcess {
  const compiled = __filename.endsWith('.js');
  return fork(path.join(__dirname, compiled ? 'load-client.js' : 'load-client.ts'), [], {
    execArgv: compiled ? [] : ['-r', 'ts-node/register/transpile-only'],
  });
}

/** The load-generating child process, started on first use; `run` sends it one job at a time. */
export class RemoteLoader {
  private child: ChildProcess | null = null;

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Fork the child now (its start-up then falls outside a measurement that reads its CPU). */
  start(): this {
    this.child ??= forkLoadClient();
    return this;
  }

  run(job: LoadJob): Promise<number> {
    return this.ask(job).then((reply) => reply.perSecond);
  }

  /** `run`, with the latency of the operations and the HTTP requests each took (an `issue`: POST sign and its polls). */
  measure(job: LoadJob): Promise<{ perSecond: number; latency: Latency; requestsPerOperation: number }> {
    return this.ask(job).then((reply) => ({
      perSecond: reply.perSecond,
      latency: reply.latency!,
      requestsPerOperation: reply.requestsPerOperation!,
    }));
  }

  /** One `stream` job: the figures of reading the body in the client process. */
  stream(job: StreamJob): Promise<StreamFigures> {
    return this.ask(job).then((reply) => reply.stream!);
  }

  private ask(job: LoadJob | StreamJob): Promise<Extract<LoadReply, { ok: true }>> {
    this.child ??= forkLoadClient();
    const child = this.child;
    return new Promise((resolve, reject) => {
      child.once('message', (reply: LoadReply) => (reply.ok ? resolve(reply) : reject(new Error(reply.error))));
      child.send(job);
    });
  }

  exit(): void {
    this.child?.send('exit');
  }

  kill(): void {
    this.child?.kill();
  }
}

/** Requests `call` sent since the last `load` began. */
let requests = 0;

/** One HTTP request; the body is read whole. `via` picks the connection pool (keep-alive here). */
export function call(
  url: string,
  options: { method?: string; auth?: string; body?: string } = {},
  via: http.Agent = agent,
): Promise<{ status: number; body: string }> {
  requests++;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.auth) headers.Authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    if (options.body) headers['Content-Type'] = 'application/json';
    const req = http.request(url, { method: options.method ?? 'GET', agent: via, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** POST a binary body (an OCSP request); resolves with the status once the answer is read whole. */
function postBinary(url: string, body: Buffer, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'Content-Type': contentType, 'Content-Length': body.length } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** GET `url` once, counting and dropping the body. */
function streamOnce({ url, auth, cookie }: StreamJob): Promise<StreamFigures> {
  const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (auth) headers.Authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
    if (cookie) headers.Cookie = cookie;
    const req = http.get(url, { agent, headers }, (res) => {
      let ttfbMs = -1;
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        if (ttfbMs < 0) ttfbMs = ms(t0);
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () =>
        res.statusCode === 200 ? resolve({ ttfbMs, totalMs: ms(t0), bytes, lines }) : reject(new Error(`status ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
  });
}

/** The durations of the last `load` (ms), for its latency percentiles. */
let durations: number[] = [];

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : Number.NaN;
}

function lastLatency(): Latency {
  const sorted = [...durations].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

/**
 * `total` operations by `clients` closed loops; with `durationMs`, as many as start within that time
 * (those under way then finish and count). Operations per second over the whole time.
 */
async function load(total: number, clients: number, one: (client: number) => Promise<void>, durationMs?: number): Promise<number> {
  let left = durationMs === undefined ? total : Infinity;
  durations = [];
  requests = 0;
  const start = process.hrtime.bigint();
  const end = durationMs === undefined ? Infinity : Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (left-- > 0 && Date.now() < end) {
        const t0 = process.hrtime.bigint();
        await one(client);
        durations.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  return durations.length / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function issueOne(job: Extract<LoadJob, { kind: 'issue' }>, target: IssueTarget): Promise<void> {
  const signed = await call(`${target.apiRoot}/ca/${target.caSerial}/sign/`, {
    method: 'POST',
    auth: target.auth,
    body: JSON.stringify({ csr: job.csr, subject: [{ oid: 'CN', value: 'bench.example.com' }] }),
  });
  if (signed.status !== 200) throw new Error(`sign: ${signed.status} ${signed.body}`);
  const slug = (JSON.parse(signed.body) as { slug: string }).slug;
  // Poll like a client would: at once, then every `pollMs` (bounded to about 20 s).
  const polls = Math.ceil(20_000 / Math.max(1, job.pollMs));
  for (let i = 0; i < polls; i++) {
    const reply = await call(`${target.apiRoot}/ca/${target.caSerial}/orders/${slug}/`, { auth: target.auth });
    const order = JSON.parse(reply.body) as { status: string; error: string };
    if (order.status === 'issued') return;
    if (order.status === 'failed') throw new Error(`order failed: ${order.error}`);
    await new Promise((r) => setTimeout(r, job.pollMs));
  }
  throw new Error('order not issued');
}

async function run(job: LoadJob): Promise<number> {
  switch (job.kind) {
    case 'get':
      return load(job.total, job.clients, async () => {
        const r = await call(job.url, { auth: job.auth });
        if (r.status !== 200) throw new Error(`GET ${job.url}: ${r.status}`);
      });
    case 'wrong':
      return load(job.total, job.clients, async () => {
        const r = await call(job.url, { auth: job.auth });
        if (r.status !== 401) throw new Error(`expected 401, got ${r.status}`);
      });
    case 'issue':
      return load(job.total, job.clients, (client) => issueOne(job, job.targets[client % job.targets.length]), job.durationMs);
    case 'post': {
      const body = Buffer.from(job.bodyBase64, 'base64');
      return load(job.total, job.clients, async () => {
        const status = await postBinary(job.url, body, job.contentType);
        if (status !== 200) throw new Error(`POST ${job.url}: ${status}`);
      });
    }
  }
}

if (require.main === module) {
  process.on('message', (job: LoadJob | StreamJob | 'exit') => {
    if (job === 'exit') {
      agent.destroy();
      process.disconnect?.();
      return;
    }
    const done =
      job.kind === 'stream'
        ? streamOnce(job).then((stream) => ({ ok: true as const, perSecond: 0, stream }))
        : run(job).then((perSecond) => ({
            ok: true as const,
            perSecond,
            latency: lastLatency(),
            requestsPerOperation: durations.length ? requests / durations.length : Number.NaN,
          }));
    done.then(
      (reply) => process.send?.(reply satisfies LoadReply),
      (e: unknown) => process.send?.({ ok: false, error: String((e as Error)?.message ?? e) } satisfies LoadReply),
    );
  });
}
