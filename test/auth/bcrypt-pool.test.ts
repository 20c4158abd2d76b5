/** The bcrypt worker pool: correct answers (bcryptjs on this thread is the oracle), off the main thread. */
import * as bcrypt from 'bcryptjs';
import { threadId } from 'worker_threads';
import { BcryptPool } from '../../adapters/auth/bcrypt-pool';

describe('BcryptPool', () => {
  const pool = new BcryptPool({ size: 2 });
  afterAll(() => pool.close());

  test('compare agrees with bcryptjs', async () => {
    const hash = bcrypt.hashSync('correct horse', 4);
    await expect(pool.compare('correct horse', hash)).resolves.toBe(true);
    await expect(pool.compare('correct horsE', hash)).resolves.toBe(false);
    await expect(pool.compare('', hash)).resolves.toBe(false);
  });

  test('hash produces a hash bcryptjs accepts, at the requested cost', async () => {
    const hash = await pool.hash('pässwörd:with:colons', 5);
    expect(bcrypt.getRounds(hash)).toBe(5);
    expect(bcrypt.compareSync('pässwörd:with:colons', hash)).toBe(true);
    expect(bcrypt.compareSync('other', hash)).toBe(false);
  });

  test('work runs on worker threads, spread over the pool', async () => {
    const before = pool.stats();
    const hash = bcrypt.hashSync('x', 4);
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => pool.compare(i % 2 ? 'x' : 'y', hash)));
    expect(results).toEqual([true, false, true, false, true, false]);
    const after = pool.stats();
    expect(after.compares - before.compares).toBe(6);
    const threads = Object.keys(after.tasksByThread).map(Number);
    expect(threads).toHaveLength(2);
    expect(threads).not.toContain(threadId);
  });

  test('a malformed hash does not match; an error in the thread rejects and the pool goes on', async () => {
    await expect(pool.compare('x', 'not a bcrypt hash')).resolves.toBe(false);
    await expect(pool.compare('x', 5 as unknown as string)).rejects.toThrow(/^bcrypt: /);
    await expect(pool.compare('x', bcrypt.hashSync('x', 4))).resolves.toBe(true);
  });

  test('a closed pool refuses work', async () => {
    const p = new BcryptPool({ size: 1 });
    await expect(p.compare('a', bcrypt.hashSync('a', 4))).resolves.toBe(true);
    await p.close();
    await expect(p.compare('a', 'b')).rejects.toThrow(/closed/);
  });

  test('size must be a positive integer', () => {
    expect(() => new BcryptPool({ size: 0 })).toThrow(/size must be a positive integer/);
  });
});
