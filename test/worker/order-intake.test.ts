/**
 * OrderIntake (lib/ca/order-runner/order-intake.ts): handed-over orders are taken without a database
 * read, jobs are claimed (and their orders read) at the first take, after `listSoon`, after a full page and at least
 * once per interval (and not merely because nothing was handed over), and an order one batch holds is
 * never given to another until it is released.
 */
import { OrderIntake } from '../../lib/ca/order-runner/order-intake';
import type { BatchOrderStore, JobRecord, JobStoreProvider, OrderRecord } from '../../lib/ports';

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

/**
 * A store whose pending orders the test sets, each with a job: `claim` leases free jobs (the one
 * claim statement's rule: a live lease, this runner's too, is not claimed again) and counts calls;
 * `lapse` ends every lease, as the clock would.
 */
function source(pending: OrderRecord[]) {
  let lists = 0;
  const leased = new Set<number>();
  const store = {
    jobs: {
      claim: async (_kinds: string[], _owner: string, limit: number) => {
        lists++;
        const free = pending.filter((o) => !leased.has(o.id)).slice(0, limit);
        for (const o of free) leased.add(o.id);
        return free.map((o) => ({ id: o.id, reference: String(o.id) }) as JobRecord);
      },
      complete: async () => true,
    },
    pendingOrders: async (ids: number[]) => pending.filter((o) => ids.includes(o.id)),
  } as unknown as BatchOrderStore & JobStoreProvider;
  return { store, lists: () => lists, lapse: () => leased.clear() };
}

test('handed-over orders are taken without listing; the first take and listSoon list', async () => {
  const intake = new OrderIntake(10, 60_000, 5000);
  const src = source([order(1), order(2)]);
  expect((await intake.take(src.store, 'me')).map((o) => o.id)).toEqual([1, 2]); // first take lists
  expect(src.lists()).toBe(1);
  intake.release([order(1), order(2)]);
  intake.hand(order(7));
  intake.hand(order(5));
  expect((await intake.take(src.store, 'me')).map((o) => o.id)).toEqual([5, 7]); // oldest first, no list
  expect(src.lists()).toBe(1);
  intake.release([order(5), order(7)]);
  expect(await intake.take(src.store, 'me')).toEqual([]); // nothing handed over, no listing due: no read
  expect(src.lists()).toBe(1);
  intake.listSoon();
  expect(await intake.take(src.store, 'me')).toEqual([]); // asked for: a claim; 1 and 2 are still leased to this runner
  expect(src.lists()).toBe(2);
  src.lapse(); // their leases lapse (this runner stopped, say): claimable again
  intake.listSoon();
  expect((await intake.take(src.store, 'me')).map((o) => o.id)).toEqual([1, 2]);
  expect(src.lists()).toBe(3);
});

test('a full page of pending orders keeps listing until a page comes back short', async () => {
  const intake = new OrderIntake(2, 60_000, 5000);
  const pending = [order(1), order(2), order(3)];
  const src = source(pending);
  const first = await intake.take(src.store, 'me'); // limit 2, 2 rows: full
  expect(first.map((o) => o.id)).toEqual([1, 2]);
  pending.splice(0, 2); // stored by the first batch
  intake.release(first);
  expect((await intake.take(src.store, 'me')).map((o) => o.id)).toEqual([3]); // listed again: the backlog
  expect(src.lists()).toBe(2);
  expect(await intake.take(src.store, 'me')).toEqual([]); // the short page ended the backlog
  expect(src.lists()).toBe(2);
});

test('the database is listed at least once per interval even under a steady local stream', async () => {
  const intake = new OrderIntake(10, 0, 5000); // every take is "late"
  const src = source([order(3)]);
  intake.hand(order(9));
  expect((await intake.take(src.store, 'me')).map((o) => o.id)).toEqual([3, 9]); // handed over and claimed
  expect(src.lists()).toBe(1);
});

test('held orders go to no other batch until released, and release wakes a waiting batch', async () => {
  const intake = new OrderIntake(2, 60_000, 5000);
  const src = source([order(1), order(2), order(3)]);
  const first = await intake.take(src.store, 'me');
  expect(first.map((o) => o.id)).toEqual([1, 2]);
  expect(intake.busy).toBe(true);
  const second = await intake.take(src.store, 'me');
  expect(second.map((o) => o.id)).toEqual([3]);
  expect(await intake.take(src.store, 'me')).toEqual([]); // everything pending is held
  let woken = false;
  const waiting = intake.released().then(() => (woken = true));
  await Promise.resolve();
  expect(woken).toBe(false);
  intake.release(first);
  await waiting;
  expect(woken).toBe(true);
  intake.release(second);
  expect(intake.busy).toBe(false);
  src.lapse(); // their jobs' leases lapse (a batch given up without letting them go)
  intake.listSoon(); // the poll loop's timer
  expect((await intake.take(src.store, 'me')).map((o) => o.id)).toEqual([1, 2]); // still pending: taken again
});

test('batch size bounds what one take returns', async () => {
  const intake = new OrderIntake(3, 60_000, 5000);
  for (let i = 1; i <= 5; i++) intake.hand(order(i));
  const src = source([]);
  expect((await intake.take(src.store, 'me')).length).toBe(3);
  expect((await intake.take(src.store, 'me')).length).toBe(2);
});
