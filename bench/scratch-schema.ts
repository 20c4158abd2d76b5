/** Bench runs on a shared PostgreSQL database leave nothing behind. */
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
