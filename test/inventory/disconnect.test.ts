/**
 * A client that goes away in the middle of a streamed list ends the store's reading (docs/DESIGN.md
 * "Inventory"): no batch is read after the server has seen the connection close, whether the store
 * streams itself (`streamCertificates`, whose iterator is ended) or is read in keyset batches
 * through `listCertificates`. The server keeps serving afterwards.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { keysetBatches } from '../../lib/api/pagination';
import { STREAM_BATCH_SIZE } from '../../lib/api/certs';
import type { CertificateFilter, CertificateRecord, CertificateStreaming, Store } from '../../lib/ports';
import { buildApp, type TestApp } from '../helpers/http';
import { API, issueThroughApi, opensslCsr, setupApi, type ApiFixture } from '../api/fixture';
import { cloneCertificates } from './bulk';

jest.setTimeout(60_000);

const ROWS = 12_000;
const TOTAL_BATCHES = Math.ceil(ROWS / STREAM_BATCH_SIZE);

let f: ApiFixture;
beforeAll(async () => {
  f = await setupApi();
  await issueThroughApi(f, opensslCsr('EC').csr);
  await cloneCertificates(f.db.knex, f.ca.id, ROWS - 1, { serialPrefix: 'C', cnPrefix: 'stream-' });
});
afterAll(() => f.close());

/** Counts the store's list reads: how many began, how many are still running. */
interface Reads {
  started: number;
  running: number;
  /** Set by the streaming variant when its iterator was ended. */
  ended: boolean;
}

function countingStore(streaming: boolean): { store: Store; reads: Reads } {
  const reads: Reads = { started: 0, running: 0, ended: false };
  const listCertificates = async (filter: CertificateFilter): Promise<CertificateRecord[]> => {
    reads.started++;
    reads.running++;
    try {
      return await f.store.listCertificates(filter);
    } finally {
      reads.running--;
    }
  };
  const extra: Partial<Store & CertificateStreaming> = { listCertificates };
  if (streaming) {
    extra.streamCertificates = async function* (filter: CertificateFilter, batchSize: number) {
      try {
        yield* keysetBatches((p) => listCertificates({ ...filter, ...p }), batchSize, filter.afterId);
      } finally {
        reads.ended = true;
      }
    };
  }
  // The real store underneath (its methods run with `this` = the wrapper, which inherits its state).
  return { store: Object.assign(Object.create(f.store) as Store, extra), reads };
}

async function listen(app: TestApp['app']): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** GET the unpaged list, take the first chunk, then cut the connection. Resolves with the chunk. */
function readFirstChunkAndLeave(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: `${API}/ca/${f.ca.serial}/certs/`, headers: f.auth('alice') }, (res) => {
      res.once('data', (chunk: Buffer) => {
        res.pause();
        req.destroy();
        resolve(chunk.toString('utf8'));
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'ECONNRESET') reject(e);
    });
  });
}

async function settled(reads: Reads): Promise<void> {
  let last = -1;
  for (let i = 0; i < 200 && (reads.started !== last || reads.running > 0); i++) {
    last = reads.started;
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe.each([
  ['keyset batches through listCertificates', false],
  ['the store streaming itself', true],
])('client disconnecting mid-stream: %s', (_name, streaming) => {
  test('no further batch is read, and the server goes on serving', async () => {
    const { store, reads } = countingStore(streaming);
    const testApp = buildApp({ enableRestApi: true, store, keyBackends: { default: f.keyBackend } });
    const { server, port } = await listen(testApp.app);
    try {
      const first = await readFirstChunkAndLeave(port);
      expect(first.startsWith('[{"id":')).toBe(true);
      await settled(reads);
      expect(reads.running).toBe(0);
      expect(reads.started).toBeGreaterThan(0);
      expect(reads.started).toBeLessThan(TOTAL_BATCHES / 2);
      if (streaming) expect(reads.ended).toBe(true);

      // Nothing was left holding the store: a full list afterwards is complete.
      const before = reads.started;
      const res = await fetch(`http://127.0.0.1:${port}${API}/ca/${f.ca.serial}/certs/`, { headers: f.auth('alice') });
      expect(res.status).toBe(200);
      expect(((await res.json()) as unknown[]).length).toBe(ROWS);
      expect(reads.started - before).toBe(TOTAL_BATCHES + (ROWS % STREAM_BATCH_SIZE === 0 ? 1 : 0));
    } finally {
      await new Promise((r) => server.close(r));
      await testApp.close();
    }
  });
});
