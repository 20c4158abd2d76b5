/**
 * The first start on a new embedded database (adapters/store/database.ts): PGlite's first-time setup
 * (initdb, then the migrations) takes seconds of CPU, a minute on a loaded machine, and must not run
 * into knex's wait for a connection — the pool gets the database once it is ready. And knex's own
 * timeout message, with its hint about the caller's code ("Are you missing a .transacting(trx)
 * call?"), reaches nobody: the store tells it in our words.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openDatabase } from '../../adapters/store/database';
import { knexStore } from '../../adapters/store/knex';
import { StoreUnavailableError } from '../../lib/ports';
import { migratedPgliteSnapshot } from '../helpers/pglite-snapshot';

/** Every message of an error and of its causes. */
function messages(error: unknown): string[] {
  const out: string[] = [];
  for (let e = error as { message?: unknown; cause?: unknown } | undefined; e && out.length < 10; e = e.cause as typeof e) {
    out.push(String(e.message));
  }
  return out;
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'first-open-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a new data directory whose first-time setup outlasts the connection wait opens and migrates', async () => {
  // A wait far shorter than initdb takes anywhere (seconds), far longer than a statement on a ready database.
  const connectTimeoutMs = 500;
  const started = Date.now();
  const db = await openDatabase(path.join(dir, 'new'), { connectTimeoutMs, warn: () => undefined });
  const setup = Date.now() - started;
  const store = knexStore(db);
  try {
    expect(setup).toBeGreaterThan(connectTimeoutMs); // the setup did take longer than the wait
    expect(await store.migrate()).toBeGreaterThan(0);
    expect(await store.listCas()).toEqual([]);
  } finally {
    await store.close();
  }
}, 300_000);

test("a query that waits longer than the wait for the one connection is unavailable, without knex's hint", async () => {
  const db = await openDatabase('memory://', { connectTimeoutMs: 200, pgliteSnapshot: await migratedPgliteSnapshot() });
  const store = knexStore(db);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // A transaction holds PGlite's one connection until released.
  const holding = db.transaction(async (trx) => {
    await trx.raw('select 1');
    await held;
  });
  try {
    const error = await store.getCa(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ connectionLost: true });
    expect((error as Error).message).toBe('No database connection became free in time (the database is busy, or not answering).');
    expect(messages(error).filter((m) => /transacting|pool is probably full/i.test(m))).toEqual([]);
  } finally {
    release();
    await holding;
    await store.close();
  }
});
