/**
 * RecordCache (lib/cache/record-cache.ts), the structure behind every read cache of the API: TTL,
 * invalidation by id and by key, the generation guard against a read racing an invalidation, the
 * size bound, and misses never kept.
 */
import { RecordCache, subscribeIfSupported } from '../../lib/cache/record-cache';

interface Rec {
  id: number;
  name: string;
  v: number;
}

function setup(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let clock = 1_000;
  const cache = new RecordCache<Rec>((r) => r.name, {
    ttlMs: options.ttlMs ?? 100,
    maxEntries: options.maxEntries ?? 10,
    now: () => clock,
  });
  let loads = 0;
  const load = (r: Rec | null) => async () => {
    loads++;
    return r;
  };
  return { cache, load, loads: () => loads, tick: (ms: number) => (clock += ms) };
}

test('a read is kept for ttlMs, by key and by id, then read again', async () => {
  const t = setup();
  const a = { id: 1, name: 'a', v: 1 };
  expect(await t.cache.read('a', t.load(a))).toBe(a);
  expect(await t.cache.read('a', t.load({ ...a, v: 2 }))).toBe(a);
  expect(await t.cache.readById(1, t.load({ ...a, v: 3 }))).toBe(a);
  expect(t.loads()).toBe(1);
  t.tick(99);
  expect(t.cache.get('a')).toBe(a);
  t.tick(1);
  expect(t.cache.get('a')).toBeNull();
  expect((await t.cache.read('a', t.load({ ...a, v: 4 })))?.v).toBe(4);
  expect(t.loads()).toBe(2);
});

test('misses are not kept', async () => {
  const t = setup();
  expect(await t.cache.read('x', t.load(null))).toBeNull();
  expect(await t.cache.read('x', t.load(null))).toBeNull();
  expect(t.loads()).toBe(2);
  expect(t.cache.size).toBe(0);
});

test('invalidate (by id) and invalidateKey drop the entry at once', async () => {
  const t = setup();
  await t.cache.read('a', t.load({ id: 1, name: 'a', v: 1 }));
  await t.cache.read('b', t.load({ id: 2, name: 'b', v: 1 }));
  t.cache.invalidate(1);
  expect(t.cache.get('a')).toBeNull();
  expect(t.cache.get('b')).not.toBeNull();
  t.cache.invalidateKey('b');
  expect(t.cache.getById(2)).toBeNull();
});

test('a read that raced with an invalidation is returned but not kept', async () => {
  const t = setup();
  let release: () => void = () => undefined;
  const slow = t.cache.read('a', () => new Promise<Rec>((resolve) => (release = () => resolve({ id: 1, name: 'a', v: 1 }))));
  t.cache.invalidate(1); // the row changed while it was being read
  release();
  expect((await slow)?.v).toBe(1);
  expect(t.cache.get('a')).toBeNull();
});

test('a renamed record leaves no stale key behind', async () => {
  const t = setup();
  await t.cache.read('a', t.load({ id: 1, name: 'a', v: 1 }));
  t.cache.put({ id: 1, name: 'renamed', v: 2 });
  expect(t.cache.get('a')).toBeNull();
  expect(t.cache.get('renamed')?.v).toBe(2);
  expect(t.cache.size).toBe(1);
});

test('at most maxEntries are kept; the longest kept go first', async () => {
  const t = setup({ maxEntries: 3 });
  for (let i = 1; i <= 5; i++) t.cache.put({ id: i, name: `n${i}`, v: i });
  expect(t.cache.size).toBe(3);
  expect(t.cache.get('n1')).toBeNull();
  expect(t.cache.get('n2')).toBeNull();
  expect(t.cache.get('n5')?.v).toBe(5);
});

test('ttlMs 0 keeps nothing', async () => {
  const t = setup({ ttlMs: 0 });
  await t.cache.read('a', t.load({ id: 1, name: 'a', v: 1 }));
  await t.cache.read('a', t.load({ id: 1, name: 'a', v: 1 }));
  expect(t.loads()).toBe(2);
});

test('subscribeIfSupported: a real subscription, a missing one, and a proxy that answers every name', () => {
  const listeners: ((id: number) => void)[] = [];
  const off = subscribeIfSupported(
    (l) => {
      listeners.push(l);
      return () => listeners.splice(listeners.indexOf(l), 1);
    },
    () => undefined,
  );
  expect(listeners).toHaveLength(1);
  off?.();
  expect(listeners).toHaveLength(0);
  expect(subscribeIfSupported(undefined, () => undefined)).toBeNull();
  expect(
    subscribeIfSupported(
      () => Promise.reject(new Error('no such method')),
      () => undefined,
    ),
  ).toBeNull();
  expect(
    subscribeIfSupported(
      () => {
        throw new Error('no');
      },
      () => undefined,
    ),
  ).toBeNull();
});

test('concurrent misses of one key share one read; a failed read is not shared afterwards', async () => {
  const t = setup();
  let release: (r: Rec) => void = () => undefined;
  let loads = 0;
  const slow = () => {
    loads++;
    return new Promise<Rec>((resolve) => (release = resolve));
  };
  const all = Promise.all(Array.from({ length: 10 }, () => t.cache.read('a', slow)));
  release({ id: 1, name: 'a', v: 1 });
  expect((await all).every((r) => r?.v === 1)).toBe(true);
  expect(loads).toBe(1);
  await expect(t.cache.read('b', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  expect((await t.cache.read('b', t.load({ id: 2, name: 'b', v: 2 })))?.v).toBe(2);
});
