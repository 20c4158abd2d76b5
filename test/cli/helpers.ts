/** Running `ca-admin` in-process against a shared test store. */
import { runCli, type CliIo } from '../../lib/cli';
import type { Store } from '../../lib/ports';

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
