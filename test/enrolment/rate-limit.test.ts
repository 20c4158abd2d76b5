/**
 * EndpointRateLimits (lib/enrolment/rate-limit.ts) with a clock of its own: a budget of N a minute
 * grants N at once, then one every 60/N seconds, saves up at most a minute's worth, and says how long
 * to wait; endpoints do not share budgets.
 */
import { EndpointRateLimits } from '../../lib/enrolment/rate-limit';

test('N at once, then one every 60/N s; the wait is whole seconds; endpoints apart', () => {
  let now = 1_000_000;
  const limits = new EndpointRateLimits(() => now);
  expect([limits.take('EST/a', 3), limits.take('EST/a', 3), limits.take('EST/a', 3)]).toEqual([null, null, null]);
  expect(limits.take('EST/a', 3)).toBe(20); // one request in 20 s
  expect(limits.take('EST/b', 3)).toBeNull(); // another endpoint, its own budget
  now += 19_000;
  expect(limits.take('EST/a', 3)).toBe(1);
  now += 1_000;
  expect(limits.take('EST/a', 3)).toBeNull();
  expect(limits.take('EST/a', 3)).toBe(20);
});

test('an idle endpoint saves up at most a minute’s worth', () => {
  let now = 0;
  const limits = new EndpointRateLimits(() => now);
  expect(limits.take('SCEP/', 2)).toBeNull();
  now += 3_600_000;
  expect([limits.take('SCEP/', 2), limits.take('SCEP/', 2), limits.take('SCEP/', 2)]).toEqual([null, null, 30]);
});
