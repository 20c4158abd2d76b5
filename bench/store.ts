/**
 * What each order costs the database, with nothing else running: the two writes every issued
 * certificate needs (the pending order, written by the sign endpoint through the group commit; the
 * certificate plus the order marked issued, written by the runner's one-statement batch store), in
 * milliseconds of wall time per order, for batches of 10 and 30. Embedded PGlite (in memory and in a
 * directory, on its own thread as the router uses it), and PostgreSQL when DATABASE_URL or
 * TEST_DATABASE_URL is a postgres:// URL.
 *
 * These are the floor under bench/api's end-to-end figures: the database part of each certificate
 * cannot cost less than this, however the rest is arranged. Medians of rounds, after warm-up rounds.
 *
 *   npm run bench:store
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openDatabase } from '../adapters/store/database';
import { knexStore } from '../adapters/store/knex';
import { hasBatchOrders } from '../lib/ports';
import { initCa } from '../lib/ca/authorities';
import { prepareIssuance } from '../lib/ca/issuance/prepare';
import { parseCsr } from '../lib/x509/csr';
import { policyContextOf } from '../lib/ca/policy/context';
import { signCertificate } from '../lib/ca/issuance/sign';
import { defaultKeyBackend } from '../adapters/keys';
import { resolveProfiles } from '../lib/ca/profiles';
import { benchCsrPem } from './csr';
import { benchPostgresUrl, withScratchSchema } from './scratch-schema';

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const WARM_UP = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function measure(label: string, url: string): Promise<void> {
  const db = await openDatabase(url);
  const store = knexStore(db);
  try {
    if (!hasBatchOrders(store) || !store.issueOrders) throw new Error('the knex store has lost its batch store');
    const issueOrders = store.issueOrders.bind(store);
    await store.migrate();
    const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32).toString('base64') }) };
    const ca = await initCa({
      store,
      keyBackends,
      name: `Bench ${randomBytes(4).toString('hex')}`,
      subject: [{ oid: 'CN', value: 'Bench store CA' }],
      keyType: 'EC',
      curve: 'secp256r1',
      apiEnabled: true,
      expiresDays: 365,
    });
    const user = await store.createUser(`bench-${randomBytes(4).toString('hex')}`, 'x', []);
    const profiles = resolveProfiles({});
    const csr = benchCsrPem();
    for (const batch of [10, 30]) {
      const insert: number[] = [];
      const issue: number[] = [];
      for (let round = 0; round < WARM_UP + ROUNDS; round++) {
        const requests = Array.from({ length: batch }, () =>
          prepareIssuance(
            { csr: parseCsr(csr), subject: [{ oid: 'CN', value: 'bench.example.com' }], extensions: [], notAfter: null },
            { ca, policy: policyContextOf(ca, []), profiles },
          ),
        );
        let t = performance.now();
        // Placed leased to this bench's runner, as the sign endpoint places them for its instance's runner.
        const lease = { owner: 'bench', expires: new Date(Date.now() + 60_000) };
        const orders = await Promise.all(requests.map((request) => store.createOrder({ caId: ca.id, userId: user.id, request, lease })));
        const inserted = performance.now() - t;
        const certificates = await Promise.all(
          requests.map((request) =>
            signCertificate({ keyBackends, profiles, intents: store }, ca, request, { requester: null, door: 'rest' }),
          ),
        );
        t = performance.now();
        const stored = await issueOrders(
          orders.map((o, i) => ({ order: o, certificate: certificates[i] })),
          new Date(),
          'bench',
        );
        const issued = performance.now() - t;
        if (stored.length !== batch) throw new Error(`stored ${stored.length} of ${batch}`);
        if (round >= WARM_UP) {
          insert.push(inserted / batch);
          issue.push(issued / batch);
        }
      }
      console.log(
        `${label}, batches of ${batch}: pending order ${median(insert).toFixed(3)} ms/order; certificate stored + order issued ${median(issue).toFixed(3)} ms/order; together ${(median(insert) + median(issue)).toFixed(3)} ms/order`,
      );
    }
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${os.cpus().length} CPUs; ${ROUNDS} rounds per figure (median)`);
  await measure('PGlite in memory', 'memory://');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-db-'));
  try {
    await measure('PGlite in a directory', dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const pg = benchPostgresUrl();
  if (pg) await withScratchSchema(pg, (url) => measure('PostgreSQL', url));
  else console.log('(PostgreSQL skipped: set DATABASE_URL or TEST_DATABASE_URL to a postgres:// URL)');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
