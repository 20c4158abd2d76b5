/**
 * GroupCommit (adapters/store/knex/group-commit.ts) on its own: how writes are grouped, and that a
 * failed group still gives each caller its own outcome.
 */
import { GroupCommit } from '../../adapters/store/knex/group-commit';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A writer whose grouped writes wait until released, recording the groups it was given. */
function gatedWriter() {
  const groups: number[][] = [];
  const singles: number[] = [];
  let release: () => void = () => undefined;
  let gate = new Promise<void>((r) => (release = r));
  const commit = new GroupCommit<number, string>(
    async (items) => {
      groups.push(items);
      await gate;
      return items.map((i) => `many:${i}`);
    },
    async (item) => {
      singles.push(item);
      await gate;
      if (item < 0) throw new Error(`bad item ${item}`);
      return `one:${item}`;
    },
  );
  return {
    commit,
    groups,
    singles,
    open() {
      release();
      gate = Promise.resolve();
    },
  };
}

describe('GroupCommit', () => {
  test('writes requested in one turn go out as one group', async () => {
    const w = gatedWriter();
    w.open();
    await expect(Promise.all([1, 2, 3].map((i) => w.commit.write(i)))).resolves.toEqual(['many:1', 'many:2', 'many:3']);
    expect(w.groups).toEqual([[1, 2, 3]]);
  });

  test('writes requested while a group is in flight wait and form the next group, however many turns they span', async () => {
    const w = gatedWriter();
    const first = [1, 2].map((i) => w.commit.write(i));
    await turn();
    expect(w.groups).toEqual([[1, 2]]);
    const later: Promise<string>[] = [];
    for (const i of [3, 4, 5]) {
      later.push(w.commit.write(i));
      await turn(); // each in its own turn of the event loop
    }
    expect(w.groups).toEqual([[1, 2]]); // nothing else is written while the first group is in flight
    w.open();
    await expect(Promise.all([...first, ...later])).resolves.toEqual(['many:1', 'many:2', 'many:3', 'many:4', 'many:5']);
    expect(w.groups).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  test('a failed group is written again one by one: only the bad item fails, and the next group waits for that', async () => {
    const singles: number[] = [];
    const groups: number[][] = [];
    const commit = new GroupCommit<number, string>(
      async (items) => {
        groups.push(items);
        if (items.some((i) => i < 0)) throw new Error('one bad row fails the statement');
        return items.map((i) => `many:${i}`);
      },
      async (item) => {
        singles.push(item);
        await turn();
        if (item < 0) throw new Error(`bad item ${item}`);
        return `one:${item}`;
      },
    );
    const results = await Promise.allSettled([commit.write(1), commit.write(-1), commit.write(2)]);
    const late = commit.write(7); // requested while the fallback writes are under way
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'one:1',
      'bad item -1',
      'one:2',
    ]);
    await expect(late).resolves.toBe('one:7');
    expect(singles).toEqual([1, -1, 2, 7]);
    expect(groups).toEqual([[1, -1, 2]]);
  });
});
