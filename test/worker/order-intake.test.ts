/**
 * OrderIntake (lib/ca/order-runner/order-intake.ts): handed-over orders are taken without a database
 * read, the database is listed at the first take, after `listSoon`, after a full page and at least
 * once per interval (and not merely because nothing was handed over), and an order one batch holds is
 * never given to another until it is released.
 */
import { OrderIntake } from '../../lib/ca/order-runner/order-intake';
import type { BatchOrderStore, OrderRecord } from '../../lib/ports';

function order(id: number): OrderRecord {
  const now = new Date();
  return {
    id,
    created: now,
    updated: now,
    slug: `s${id}`,
    caId: 1,
    userId: 1,
    status: 'pending',
    certificateSerial: null,
    certificateId: null,
    error: null,
    request: {} as OrderRecord['request'],
    leaseOwner: null,
    leaseExpires: null,
  };
}

/** A store whose pending list the test sets, counting list calls. */
function source(pending: OrderRecord[]) {
  let lists = 0;
  const store = {
    listPendingOrders: async (limit: number) => {
      lists++;
      return pending.slice(0, limit);
    },
  } as unknown as BatchOrderStore;
  return { store, lists: () => lists };
}

test('handed-over orders are taken without listing; the first take and listSoon list', async () => {
  const intake = new OrderIntake(10, 60_000);
  const src = source([order(1), order(2)]);
  expect((await intake.take(src.store)).map((o) => o.id)).toEqual([1, 2]); // first take lists
  expect(src.lists()).toBe(1);
  intake.release([order(1), order(2)]);
  intake.hand(order(7));
  intake.hand(order(5));
  expect((await intake.take(src.store)).map((o) => o.id)).toEqual([5, 7]); // oldest first, no list
  expect(src.lists()).toBe(1);
  intake.release([order(5), order(7)]);
  expect(await intake.take(src.store)).toEqual([]); // nothing handed over, no listing due: no read
  expect(src.lists()).toBe(1);
  intake.listSoon();
  expect((await intake.take(src.store)).map((o) => o.id)).toEqual([1, 2]); // asked for: a read
  expect(src.lists()).toBe(2);
});

test('a full page of pending orders keeps listing until a page comes back short', async () => {
  const intake = new OrderIntake(2, 60_000);
  const pending = [order(1), order(2), order(3)];
  const src = source(pending);
  const first = await intake.take(src.store); // limit 2, 2 rows: full
  expect(first.map((o) => o.id)).toEqual([1, 2]);
  pending.splice(0, 2); // stored by the first batch
  intake.release(first);
  expect((await intake.take(src.store)).map((o) => o.id)).toEqual([3]); // listed again: the backlog
  expect(src.lists()).toBe(2);
  expect(await intake.take(src.store)).toEqual([]); // the short page ended the backlog
  expect(src.lists()).toBe(2);
});

test('the database is listed at least once per interval even under a steady local stream', async () => {
  const intake = new OrderIntake(10, 0); // every take is "late"
  const src = source([order(3)]);
  intake.hand(order(9));
  expect((await intake.take(src.store)).map((o) => o.id)).toEqual([3, 9]);
  expect(src.lists()).toBe(1);
});

test('held orders go to no other batch until released, and release wakes a waiting batch', async () => {
  const intake = new OrderIntake(2, 60_000);
  const src = source([order(1), order(2), order(3)]);
  const first = await intake.take(src.store);
  expect(first.map((o) => o.id)).toEqual([1, 2]);
  expect(intake.busy).toBe(true);
  const second = await intake.take(src.store);
  expect(second.map((o) => o.id)).toEqual([3]);
  expect(await intake.take(src.store)).toEqual([]); // everything pending is held
  let woken = false;
  const waiting = intake.released().then(() => (woken = true));
  await Promise.resolve();
  expect(woken).toBe(false);
  intake.release(first);
  await waiting;
  expect(woken).toBe(true);
  intake.release(second);
  expect(intake.busy).toBe(false);
  intake.listSoon(); // the poll loop's timer
  expect((await intake.take(src.store)).map((o) => o.id)).toEqual([1, 2]); // still pending: taken again
});

test('batch size bounds what one take returns', async () => {
  const intake = new OrderIntake(3, 60_000);
  for (let i = 1; i <= 5; i++) intake.hand(order(i));
  const src = source([]);
  expect((await intake.take(src.store)).length).toBe(3);
  expect((await intake.take(src.store)).length).toBe(2);
});
