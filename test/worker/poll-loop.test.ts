/**
 * PollLoop (lib/ca/order-runner/poll-loop.ts): every drain is told whether a poke set it off, so that
 * only the start, the timer and the end of a back-off read the database for orders nobody handed over
 * (lib/ca/order-runner/order-intake.ts).
 */
import { PollLoop } from '../../lib/ca/order-runner/poll-loop';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('the start and the timer drain unpoked; a poke drains poked, at once and only once', async () => {
  const drains: boolean[] = [];
  const loop = new PollLoop(
    async (poked) => {
      drains.push(poked);
      return 0;
    },
    1000,
    () => undefined,
  );
  loop.start();
  await jest.advanceTimersByTimeAsync(0);
  expect(drains).toEqual([false]); // the start: resumes what an earlier process left
  loop.poke();
  await jest.advanceTimersByTimeAsync(1); // setImmediate under fake timers
  expect(drains).toEqual([false, true]);
  await jest.advanceTimersByTimeAsync(1000);
  expect(drains).toEqual([false, true, false]); // the timer: orders from elsewhere
  await loop.stop();
});

test('a poke during a drain sets off one more drain, marked poked', async () => {
  const drains: boolean[] = [];
  let release: () => void = () => undefined;
  const loop = new PollLoop(
    (poked) => {
      drains.push(poked);
      return drains.length === 1 ? new Promise<number>((r) => (release = () => r(0))) : Promise.resolve(0);
    },
    1000,
    () => undefined,
  );
  loop.start();
  await jest.advanceTimersByTimeAsync(0);
  loop.poke();
  loop.poke();
  release();
  await jest.advanceTimersByTimeAsync(1);
  expect(drains).toEqual([false, true]);
  await jest.advanceTimersByTimeAsync(990);
  expect(drains).toEqual([false, true]); // two pokes, one drain; the timer not yet
  await loop.stop();
});
