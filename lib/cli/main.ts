/**
 * The CLI's entry and composition root: `ca-admin` with the default adapters (the knex store on
 * `DATABASE_URL`, keys in the store under `CA_KEY_ENCRYPTION_KEY`). bin/ca-admin.js calls `main()`;
 * tests and tools call `runCaAdmin` in-process. Only this file and the package entry (lib/index.ts)
 * import adapters.
 */
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import type { Store } from '../ports';
import type { CliIo } from './io';
import { runCli } from './run';

/** The knex store on `DATABASE_URL` (a PGlite directory by default), migrated unless told not to. */
async function openDefaultStore(databaseUrl: string | undefined, options: { migrate?: boolean } = {}): Promise<Store> {
  // Loaded on demand: `--help` and usage errors should not pay for the database drivers.
  // (require, not import(): with module node16 a dynamic import() stays an ES import.)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { openDatabase } = require('../../adapters/store/database') as typeof import('../../adapters/store/database');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { knexStore } = require('../../adapters/store/knex') as typeof import('../../adapters/store/knex');
  const store = knexStore(await openDatabase(databaseUrl));
  if (options.migrate !== false) await store.migrate();
  return store;
}

/** `ca-admin` with the default adapters for whatever `io` does not bring. */
export function runCaAdmin(argv: string[], io: CliIo): Promise<number> {
  return runCli(argv, {
    openStore: openDefaultStore,
    keyBackends: (env) => [defaultKeyBackend({ keyEncryptionKey: env.CA_KEY_ENCRYPTION_KEY })],
    // The box the router opens binding keys with by default (adapters/keys/secret-box.ts).
    secretBox: envKekSecretBox,
    ...io,
  });
}

/** The process: arguments from argv, exit code into `process.exitCode`. */
export function main(): void {
  runCaAdmin(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin }).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}

// Run as a script (`node dist/lib/cli/main.js …`, or through ts-node in tests) as well as from bin/.
if (require.main === module) main();
