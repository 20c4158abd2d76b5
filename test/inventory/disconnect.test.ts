/**
 * A client that goes away in the middle of a streamed list ends the store's reading (docs/DESIGN.md
 * "Inventory"): no batch is read after the server has seen the connection close — the store lists
 * versions (`CertificateVersionListing`, lib/api/certificate-texts.ts), then reads whole the rows not
 * held. The server keeps serving afterwards.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { ROW_BATCH_SIZE, VERSION_BATCH_SIZE } from '../../lib/api/certificate-texts';
import type { Store } from '../../lib/ports';
import { buildApp, type TestApp } from '../helpers/http';
import { API, issueThroughApi, opensslCsr, setupApi, type ApiFixture } from '../api/fixture';
import { cloneCertificates } from './bulk';

jest.setTimeout(60_000);

const ROWS = 12_000;
/** Keyset reads of a whole list of `ROWS` in batches of `size` (the last one finds fewer, or none). */
const readsOfWholeList = (size: number) => Math.floor(ROWS / size) + 1;

let f: ApiFixture;
beforeAll(async () => {
  f = await setupApi();
  await issueThroughApi(f, opensslCsr('EC').csr);
  await cloneCertificates(f.db.knex, f.ca.id, ROWS - 1, { serialPrefix: 'C', cnPrefix: 'stream-' });
});
afterAll(() => f.close());

/** Counts the store's list reads by method: how many began, how many are still running. */
interface Reads {
  started: number;
  running: number;
  byMethod: Record<string, number>;
}

type ListMethod = 'listCertificates' | 'listCertificateVersions' | 'getCertificateListRows';

function countingStore(): { store: Store; reads: Reads } {
  const reads: Reads = { started: 0, running: 0, byMethod: {} };
  const real = f.store;
  const counted =
    <A extends unknown[], R>(name: ListMethod, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      reads.started++;
      reads.running++;
      reads.byMethod[name] = (reads.byMethod[name] ?? 0) + 1;
      try {
        return await call(...args);
      } finally {
        reads.running--;
      }
    };
  const extra: Partial<Record<ListMethod, unknown>> = {
    listCertificates: counted('listCertificates', real.listCertificates.bind(real)),
    listCertificateVersions: counted('listCertificateVersions', real.listCertificateVersions.bind(real)),
    getCertificateListRows: counted('getCertificateListRows', real.getCertificateListRows.bind(real)),
  };
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

describe('client disconnecting mid-stream: the store lists versions, rows read whole for what is not held', () => {
  test('no further batch is read, and the server goes on serving', async () => {
    const { store, reads } = countingStore();
    const testApp = buildApp({ enableRestApi: true, store, keyBackends: { default: f.keyBackend } });
    const { server, port } = await listen(testApp.app);
    const wholeList = readsOfWholeList(VERSION_BATCH_SIZE) + ROWS / ROW_BATCH_SIZE;
    try {
      const first = await readFirstChunkAndLeave(port);
      expect(first.startsWith('[{"id":')).toBe(true);
      await settled(reads);
      expect(reads.running).toBe(0);
      expect(reads.started).toBeGreaterThan(0);
      expect(reads.started).toBeLessThan(wholeList / 2);

      // Nothing was left holding the store: a full list afterwards is complete.
      const before = { ...reads.byMethod };
      const res = await fetch(`http://127.0.0.1:${port}${API}/ca/${f.ca.serial}/certs/`, { headers: f.auth('alice') });
      expect(res.status).toBe(200);
      const ids = ((await res.json()) as { id: number }[]).map((r) => r.id);
      expect(ids.length).toBe(ROWS);
      expect(new Set(ids).size).toBe(ROWS);
      const after = (m: ListMethod) => (reads.byMethod[m] ?? 0) - (before[m] ?? 0);
      expect(after('listCertificateVersions')).toBe(readsOfWholeList(VERSION_BATCH_SIZE));
      expect(after('listCertificates')).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
      await testApp.close();
    }
  });
});
