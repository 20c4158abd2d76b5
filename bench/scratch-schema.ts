/** PostgreSQL for bench runs: which server, and a scratch schema so that runs leave nothing behind. */
import { randomBytes } from 'crypto';
import { openDatabase } from '../adapters/store/database';

/**
 * A fresh schema for one run on a shared PostgreSQL database (the demo data of an earlier run would
 * otherwise be in the way), dropped afterwards. The URL handed on sets its search_path.
 */
export async function withScratchSchema(url: string, body: (url: string) => Promise<void>): Promise<void> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = await openDatabase(url);
  await admin.raw('create schema ??', [schema]);
  try {
    const scoped = new URL(url);
    scoped.searchParams.set('options', `-c search_path=${schema}`);
    await body(scoped.toString());
  } finally {
    await admin.raw('drop schema ?? cascade', [schema]);
    await admin.destroy();
  }
}

/** The postgres:// URL of BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL (the first that is one). */
export function benchPostgresUrl(): string | undefined {
  return [process.env.BENCH_DATABASE_URL, process.env.DATABASE_URL, process.env.TEST_DATABASE_URL].find(
    (u): u is string => !!u && /^postgres(ql)?:\/\//i.test(u),
  );
}
