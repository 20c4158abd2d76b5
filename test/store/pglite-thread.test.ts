/**
 * Embedded PGlite on its own thread (adapters/store/pglite-thread.ts): statements run off the event
 * loop, results and database errors come back intact (with the fields the store maps), the thread
 * ends with the database, and `pgliteThread: false` still runs PGlite in place.
 */
import { openDatabase } from '../../adapters/store/database';

/** How often a 0 ms interval fires while `work` runs: 0 means the event loop was blocked throughout. */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  await work();
  clearInterval(timer);
  return ticks;
}

const HEAVY = 'select sum(g) as s from generate_series(1, 1000000) as g';

test('a long statement leaves the event loop free on the thread, and blocks it in place', async () => {
  const threaded = await openDatabase('memory://');
  const inPlace = await openDatabase('memory://', { pgliteThread: false });
  try {
    const free = await ticksDuring(() => threaded.raw(HEAVY));
    const blocked = await ticksDuring(() => inPlace.raw(HEAVY));
    expect(free).toBeGreaterThan(0);
    expect(blocked).toBe(0);
  } finally {
    await threaded.destroy();
    await inPlace.destroy();
  }
});

test('rows keep their types, and database errors keep their fields', async () => {
  const db = await openDatabase('memory://');
  try {
    await db.raw('create table t (id serial primary key, name text unique, at timestamptz, bytes bytea, doc json, big bigint)');
    const at = new Date('2026-11-22T10:00:00.123Z');
    await db('t').insert({ name: 'a', at, bytes: Buffer.from([0, 1, 255]), doc: JSON.stringify({ k: [1, 'x'] }), big: '9007199254740993' });
    const [row] = await db('t').select('*');
    expect(new Date(row.at).getTime()).toBe(at.getTime());
    expect(Buffer.from(row.bytes)).toEqual(Buffer.from([0, 1, 255]));
    expect(row.doc).toEqual({ k: [1, 'x'] });
    expect(String(row.big)).toBe('9007199254740993');
    const error = await db('t')
      .insert({ name: 'a' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: '23505', constraint: 't_name_key' });
    await expect(db.raw('select * from missing_table')).rejects.toMatchObject({ code: '42P01' });
  } finally {
    await db.destroy();
  }
});

test('statements sent together run in order, as on one connection', async () => {
  const db = await openDatabase('memory://');
  try {
    await db.raw('create table seq (n int)');
    await Promise.all(Array.from({ length: 50 }, (_, i) => db('seq').insert({ n: i })));
    const rows = await db('seq').count<{ count: number }[]>('* as count');
    expect(Number(rows[0].count)).toBe(50);
    const result = await db.transaction(async (trx) => {
      await trx('seq').insert({ n: 100 });
      return trx('seq').max<{ max: number }[]>('n as max');
    });
    expect(result[0].max).toBe(100);
  } finally {
    await db.destroy();
  }
});

test('after destroy the thread is gone: a statement fails instead of hanging', async () => {
  const db = await openDatabase('memory://');
  const client = db.client as { pglite: { query(sql: string): Promise<unknown> } };
  const thread = client.pglite;
  await db.destroy();
  await expect(thread.query('select 1')).rejects.toThrow(/exited|terminated|closed/i);
});
