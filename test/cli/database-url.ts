/**
 * The DATABASE_URL a `ca-admin` child process needs to reach a test database.
 *
 * On PostgreSQL each test file works in its own schema (test/helpers/database.ts). A child process
 * only gets a URL, so the schema travels in it as the libpq `options` parameter
 * (`-c search_path=…`), which node-postgres sends in the startup packet: every unqualified table
 * name — migrations included — then resolves in that schema, without any change to openDatabase.
 */
import type { DatabaseTarget, TestDatabase } from '../helpers/database';
import { isPostgresUrl } from '../helpers/database';

/** The schema a test database lives in (PostgreSQL), or null (PGlite has only `public`). */
export function testSchema(db: TestDatabase): string | null {
  const searchPath = db.knex.client.config.searchPath as string | string[] | undefined;
  if (!searchPath) return null;
  return Array.isArray(searchPath) ? searchPath[0] : searchPath;
}

/** `url` with `-c search_path=<schema>` added to its `options` parameter. */
export function withSearchPath(url: string, schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`${schema}: not a plain schema name`);
  const parsed = new URL(url);
  const previous = parsed.searchParams.get('options');
  parsed.searchParams.set('options', [previous, `-c search_path=${schema}`].filter(Boolean).join(' '));
  return parsed.toString();
}

/** DATABASE_URL for a child process on `db` (opened from `target`); PostgreSQL targets only. */
export function childDatabaseUrl(target: DatabaseTarget, db: TestDatabase): string {
  if (!isPostgresUrl(target.url)) throw new Error(`${target.name}: an in-memory database cannot be shared with another process`);
  const schema = testSchema(db);
  return schema ? withSearchPath(target.url, schema) : target.url;
}
