/** Running `ca-admin` in-process against a shared test store. */
import * as fs from 'fs';
import type { CliIo } from '../../lib/cli';
import { runCaAdmin as runCli } from '../../lib/cli/main';
import type { Store } from '../../lib/ports';
import { openTestDatabase, type DatabaseTarget, type TestDatabase } from '../helpers/database';
import { tmpDir } from './openssl';

/** A fixed test key-encryption key (32 bytes, base64). Never use outside tests. */
export const TEST_KEK = Buffer.alloc(32, 7).toString('base64');

export interface CliResult {
  code: number;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
}

export function cliRunner(store: Store, env: Record<string, string> = {}) {
  return async (argv: string[], extra: Partial<CliIo> = {}): Promise<CliResult> => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const code = await runCli(argv, {
      stdout: { write: (c) => out.push(Buffer.from(c)) },
      stderr: { write: (c) => err.push(Buffer.from(c)) },
      env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK, ...env },
      store,
      bcryptCost: 4,
      ...extra,
    });
    const stdoutBytes = Buffer.concat(out);
    return { code, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr: Buffer.concat(err).toString('utf8') };
  };
}

export interface CliFixture {
  db: TestDatabase;
  cli: ReturnType<typeof cliRunner>;
  /** A scratch directory for key, certificate and CSR files. */
  dir: string;
}

/**
 * Registers beforeAll/afterAll in the calling describe block: one database on `target` for the
 * block, a `ca-admin` runner on its store (with `env` added to its environment), and a scratch
 * directory. Read the fields inside tests.
 */
export function cliFixture(target: DatabaseTarget, dirPrefix?: string, env: Record<string, string> = {}): CliFixture {
  const f = {} as CliFixture;
  beforeAll(async () => {
    f.db = await openTestDatabase(target);
    f.cli = cliRunner(f.db.store, env);
    f.dir = tmpDir(dirPrefix);
  });
  afterAll(async () => {
    await f.db?.close();
    if (f.dir) fs.rmSync(f.dir, { recursive: true, force: true });
  });
  return f;
}
