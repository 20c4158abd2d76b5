/**
 * Embedded PGlite on its own thread.
 *
 * PGlite is PostgreSQL compiled to WebAssembly, and it executes every statement synchronously on the
 * thread that owns it. On the main thread that is the event loop: measured under bench/api, the
 * database took about 40 % of the server's only thread while it issued certificates, and every
 * request waited behind it. Here a `worker_threads` thread owns the PGlite instance and the main
 * thread sends it statements; the main thread pays only for copying parameters and rows, and the
 * database work runs on another core.
 *
 * `PgliteThread` offers the part of PGlite's API that knex-pglite uses (`waitReady`, `query`,
 * `close`), so knex is handed it as its PGlite instance (`connection.pglite`). Statements run one at
 * a time in the order they were sent, as on the single PGlite connection. Database errors come back
 * with their fields (`code`, `constraint`, `detail`, ...) so that callers map them as before.
 *
 * The worker's code is JavaScript evaluated from a string (like the bcrypt pool's), so it runs the
 * same from TypeScript sources and from the compiled package; PGlite is loaded from the path the main
 * thread resolved.
 */
import { Worker } from 'worker_threads';

interface QueryResult {
  rows: Record<string, unknown>[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

type Reply =
  | { id: number; ok: true; result?: QueryResult; dump?: Uint8Array }
  | { id: number; ok: false; error: Record<string, unknown> & { message: string; name?: string } };

const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('worker_threads');
const { PGlite } = require(workerData.pglitePath);
// pg_trgm backs the substring search filters with indexes (migration 0003); it ships with PGlite.
const { pg_trgm } = require(workerData.trgmPath);
// A snapshot (a tar of PGlite's dumpDataDir) is the new database's starting content: no initdb.
const loadDataDir = workerData.snapshot ? new Blob([require('fs').readFileSync(workerData.snapshot)]) : undefined;
// A smaller buffer pool than PGlite's default when asked for (database.ts, pgliteSharedBuffers).
const startParams = workerData.sharedBuffers ? [...PGlite.defaultStartParams, '-c', 'shared_buffers=' + workerData.sharedBuffers] : undefined;
const db = new PGlite({ dataDir: workerData.dataDir || undefined, extensions: { pg_trgm }, loadDataDir, startParams });
function describe(e) {
  const out = { message: String((e && e.message) || e), name: e && e.name };
  if (e && typeof e === 'object') for (const k of Object.keys(e)) if (typeof e[k] !== 'function') out[k] = e[k];
  return out;
}
const ready = db.waitReady;
ready.then(
  () => parentPort.postMessage({ id: 0, ok: true }),
  (e) => parentPort.postMessage({ id: 0, ok: false, error: describe(e) }),
);
parentPort.on('message', async (msg) => {
  try {
    await ready;
    if (msg.op === 'close') {
      await db.close();
      parentPort.postMessage({ id: msg.id, ok: true });
      return;
    }
    if (msg.op === 'dump') {
      // dumpDataDir holds PGlite's query lock while it reads the files: no statement runs meanwhile.
      const tar = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
      parentPort.postMessage({ id: msg.id, ok: true, dump: tar });
      return;
    }
    const r = await db.query(msg.sql, msg.params, msg.options);
    parentPort.postMessage({ id: msg.id, ok: true, result: { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows } });
  } catch (e) {
    parentPort.postMessage({ id: msg.id, ok: false, error: describe(e) });
  }
});
`;

/** An Error carrying the database's fields, as PGlite's own DatabaseError does. */
function rebuildError(error: Record<string, unknown> & { message: string; name?: string }): Error {
  const e = new Error(error.message) as Error & Record<string, unknown>;
  for (const [key, value] of Object.entries(error)) if (key !== 'message' && key !== 'stack') e[key] = value;
  if (typeof error.name === 'string') e.name = error.name;
  return e;
}

export class PgliteThread {
  /** Resolves once the database is open (rejects when it cannot be). */
  readonly waitReady: Promise<void>;
  private readonly worker: Worker;
  private readonly calls = new Map<number, { resolve: (r: QueryResult | Uint8Array | undefined) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private exited: Error | null = null;

  /**
   * `dataDir`: a directory holding the database, or undefined for an in-memory one; `snapshot`: a tar
   * written by PGlite's `dumpDataDir()` that a new database starts from; `sharedBuffers`: PostgreSQL's
   * `shared_buffers` for the session (database.ts, `pgliteSharedBuffers`).
   */
  constructor(dataDir: string | undefined, snapshot?: string, sharedBuffers?: string) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pglitePath: require.resolve('@electric-sql/pglite'),
        trgmPath: require.resolve('@electric-sql/pglite/contrib/pg_trgm'),
        dataDir: dataDir ?? null,
        snapshot: snapshot ?? null,
        sharedBuffers: sharedBuffers ?? null,
      },
    });
    // The setup in flight keeps the process alive (openDatabase waits for it); once it is answered, like
    // an in-thread PGlite, an idle database does not (settle).
    this.waitReady = new Promise<void>((resolve, reject) => {
      this.calls.set(0, { resolve: () => resolve(), reject });
    });
    this.waitReady.catch(() => undefined); // reported to whoever awaits it
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (e) => this.failAll(e));
    this.worker.on('exit', (code) => this.failAll(new Error(`the PGlite thread exited (code ${code})`)));
  }

  query(sql: string, params?: unknown[], options?: Record<string, unknown>): Promise<QueryResult> {
    // Only data crosses to the thread (knex passes no parsers or serializers).
    const plainOptions = options && Object.values(options).every((v) => typeof v !== 'function') ? options : undefined;
    return this.call({ op: 'query', sql, params: params ?? [], options: plainOptions }) as Promise<QueryResult>;
  }

  /**
   * The whole database as a gzipped tar (PGlite's `dumpDataDir`), taken between two statements:
   * what a backup holds (adapters/store/embedded-backup.ts).
   */
  async dumpDataDir(): Promise<Buffer> {
    const tar = (await this.call({ op: 'dump' })) as Uint8Array;
    return Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  }

  async close(): Promise<void> {
    if (this.exited) return;
    try {
      await this.call({ op: 'close' });
    } finally {
      await this.worker.terminate();
    }
  }

  private call(message: Record<string, unknown>): Promise<QueryResult | Uint8Array | undefined> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.ref(); // work in flight keeps the process alive until it is answered
      this.worker.postMessage({ id, ...message });
    });
  }

  private settle(reply: Reply): void {
    const call = this.calls.get(reply.id);
    if (!call) return;
    this.calls.delete(reply.id);
    if (reply.ok) call.resolve(reply.dump ?? reply.result);
    else call.reject(rebuildError(reply.error));
    if (this.calls.size === 0) this.worker.unref();
  }

  private failAll(error: Error): void {
    this.exited ??= error;
    for (const call of this.calls.values()) call.reject(error);
    this.calls.clear();
  }
}
