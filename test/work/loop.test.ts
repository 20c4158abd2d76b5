/**
 * WorkLoop (lib/work/loop.ts), the loop of every kind of background work: when a round runs, that a
 * round is told whether a poke set it off (so that only the start, the timer and the end of a
 * back-off read the database for work nobody handed over: lib/ca/order-runner/order-intake.ts), and
 * how failures are logged (the outage back-off: test/hardening/outage.test.ts).
 */
import { WorkLoop, type WorkLoopOptions } from '../../lib/work/loop';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

function loopOf(round: WorkLoopOptions['round'], extra: Partial<WorkLoopOptions> = {}): WorkLoop {
  return new WorkLoop({ name: 'test work', round, intervalMs: 1000, logError: () => undefined, ...extra });
}

test('the start and the timer run rounds unpoked; a poke runs one poked, at once and only once', async () => {
  const rounds: boolean[] = [];
  const loop = loopOf(async (poked) => rounds.push(poked));
  loop.start();
  await jest.advanceTimersByTimeAsync(0);
  expect(rounds).toEqual([false]); // the start: resumes what an earlier process left
  loop.poke();
  await jest.advanceTimersByTimeAsync(1); // setImmediate under fake timers
  expect(rounds).toEqual([false, true]);
  await jest.advanceTimersByTimeAsync(1000);
  expect(rounds).toEqual([false, true, false]); // the timer: work from elsewhere
  await loop.stop();
});

test('a poke during a round sets off one more round, marked poked; never two rounds at once', async () => {
  const rounds: boolean[] = [];
  let release: () => void = () => undefined;
  let running = 0;
  let overlapped = false;
  const loop = loopOf(async (poked) => {
    rounds.push(poked);
    overlapped ||= running > 0;
    running++;
    if (rounds.length === 1) await new Promise<void>((r) => (release = r));
    running--;
  });
  loop.start();
  await jest.advanceTimersByTimeAsync(0);
  loop.poke();
  loop.poke();
  release();
  await jest.advanceTimersByTimeAsync(1);
  expect(rounds).toEqual([false, true]);
  await jest.advanceTimersByTimeAsync(990);
  expect(rounds).toEqual([false, true]); // two pokes, one round; the timer not yet
  expect(overlapped).toBe(false);
  await loop.stop();
});

test('any other failure is logged every round, with the interval kept', async () => {
  const logged: string[] = [];
  const loop = loopOf(
    async () => {
      throw new Error('a bug');
    },
    { outage: { baseMs: 1000, maxMs: 4000, jitter: 'equal' }, logError: (message) => logged.push(message) },
  );
  loop.start();
  await jest.advanceTimersByTimeAsync(2000);
  expect(logged).toEqual(['express-ca-api: test work', 'express-ca-api: test work', 'express-ca-api: test work']);
  await loop.stop();
});

test('stop waits for the round under way and runs no more', async () => {
  let release: () => void = () => undefined;
  let ended = false;
  let rounds = 0;
  const loop = loopOf(async () => {
    rounds++;
    await new Promise<void>((r) => (release = r));
    ended = true;
  });
  loop.start();
  await jest.advanceTimersByTimeAsync(0);
  const stopped = loop.stop();
  expect(loop.isRunning).toBe(false);
  release();
  await stopped;
  expect(ended).toBe(true);
  await jest.advanceTimersByTimeAsync(5000);
  expect(rounds).toBe(1);
});
