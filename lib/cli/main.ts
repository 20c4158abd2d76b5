/**
 * The CLI's entry and composition root: `ca-admin` with the default adapters (the knex store on
 * `DATABASE_URL`, keys in the store under `CA_KEY_ENCRYPTION_KEY`). bin/ca-admin.js calls `main()`;
 * tests and tools call `runCaAdmin` in-process. Only this file, the package's wiring (lib/wiring.ts)
 * and the package entry (lib/index.ts) import adapters.
 */
import * as v8 from 'v8';
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { envKekSecretBox } from '../../adapters/keys/secret-box';
import { pkcs11KeyBackend, PKCS11_KEY_BACKEND_ALIAS, type Pkcs11KeyBackend } from '../../adapters/keys/pkcs11';
import { CaError } from '../ca/errors';
import { DEFAULT_DATA_DIR, environment, hsmSettings, keyEncryptionKeySetting } from '../settings';
import type { KeyBackend, Store } from '../ports';
import type { CliIo } from './io';
import { runCli } from './run';

/**
 * What a command's embedded (PGlite) database is opened with. On the calling thread: a command has
 * nothing else to run meanwhile, and a thread of its own would load PGlite a second time. With a small
 * buffer pool: a command reads few pages, and PGlite's default pool (128MB) is paid for at every start
 * (adapters/store/database.ts, `pgliteSharedBuffers`).
 */
const COMMAND_DATABASE_OPTIONS = { pgliteThread: false, pgliteSharedBuffers: '16MB' } as const;

/**
 * The knex store on `DATABASE_URL` of the command's environment (the PGlite directory `./.ca-data` when
 * it is unset), migrated unless told not to.
 */
async function openDefaultStore(databaseUrl: string | undefined, options: { migrate?: boolean } = {}): Promise<Store> {
  // Loaded on demand: `--help` and usage errors should not pay for the database drivers; openDatabase
  // loads them itself only once it holds an embedded directory, so that a directory in use by a
  // running server is refused at once.
  // (require, not import(): with module node16 a dynamic import() stays an ES import.)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { openDatabase } = require('../../adapters/store/database') as typeof import('../../adapters/store/database');
  const db = await openDatabase(databaseUrl ?? DEFAULT_DATA_DIR, COMMAND_DATABASE_OPTIONS);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { knexStore } = require('../../adapters/store/knex') as typeof import('../../adapters/store/knex');
  const store = knexStore(db);
  if (options.migrate !== false) await store.migrate();
  return store;
}

/** Backups of the embedded database (loaded on demand, as the store). */
function embeddedBackup(): typeof import('../../adapters/store/embedded-backup') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../../adapters/store/embedded-backup') as typeof import('../../adapters/store/embedded-backup');
}

/**
 * The CLI's PKCS#11 backend (docs/operations/hsm.md), configured by the environment with the names of
 * the original's HSM backend options as lib/settings reads them: `CA_HSM_LIBRARY_PATH` (library_path),
 * `CA_HSM_TOKEN` (token), `CA_HSM_USER_PIN` (user_pin), and `CA_HSM_ALIAS` (default `hsm`). Registered only when
 * CA_HSM_LIBRARY_PATH is set; the token is opened on the backend's first use, so that commands that
 * do not sign (or sign with another backend) neither need nor wait for the HSM. Closed with the
 * command (lib/cli/context.ts).
 */
function hsmKeyBackends(env: Record<string, string | undefined>): KeyBackend[] {
  const { library, token, pin, alias: given } = hsmSettings(env);
  const alias = given ?? PKCS11_KEY_BACKEND_ALIAS;
  if (!library) return [unconfiguredHsm(alias)];
  let opened: Pkcs11KeyBackend | null = null;
  const backend = (): Pkcs11KeyBackend => {
    if (opened) return opened;
    if (!token) throw new CaError('invalid', 'CA_HSM_LIBRARY_PATH is set but CA_HSM_TOKEN (the token label) is not.');
    if (pin === null) throw new CaError('invalid', 'CA_HSM_LIBRARY_PATH is set but CA_HSM_USER_PIN is not.');
    opened = pkcs11KeyBackend({ library, token, pin, alias });
    return opened;
  };
  const lazy: KeyBackend & { close(): void } = {
    alias,
    createKey: (spec, keyOptions) => backend().createKey(spec, keyOptions),
    importKey: (key, password, keyOptions) => backend().importKey(key, password, keyOptions),
    getSigner: (options, useOptions) => backend().getSigner(options, useOptions),
    close: () => opened?.close(),
  };
  return [lazy];
}

/**
 * The HSM's alias without CA_HSM_LIBRARY_PATH: a backend that, used, says which settings to make
 * (docs/operations/hsm.md) instead of the bare `hsm: Key backend is not configured.` of an alias
 * nobody knows.
 */
function unconfiguredHsm(alias: string): KeyBackend {
  const fail = (): never => {
    throw new CaError(
      'key',
      `${alias}: Key backend is not configured: set CA_HSM_LIBRARY_PATH (the PKCS#11 library, e.g. ` +
        '/usr/lib/softhsm/libsofthsm2.so), CA_HSM_TOKEN (the token label) and CA_HSM_USER_PIN (the user PIN); see docs/operations/hsm.md.',
    );
  };
  return { alias, createKey: fail, importKey: fail, getSigner: fail };
}

/** `ca-admin` with the default adapters for whatever `io` does not bring. */
export function runCaAdmin(argv: string[], io: CliIo): Promise<number> {
  return runCli(argv, {
    openStore: openDefaultStore,
    keyBackends: (env) => [defaultKeyBackend({ keyEncryptionKey: keyEncryptionKeySetting(env) ?? '' }), ...hsmKeyBackends(env)],
    // The box the router opens binding keys with by default (adapters/keys/secret-box.ts).
    secretBox: envKekSecretBox,
    backupDatabase: (databaseUrl, file) => embeddedBackup().backupEmbeddedDatabase(databaseUrl, file),
    restoreDatabase: (file, directory) => embeddedBackup().restoreEmbeddedBackup(file, directory),
    ...io,
  });
}

/**
 * The process: arguments from argv, exit code into `process.exitCode`.
 *
 * PGlite's PostgreSQL is a 9 MB WebAssembly module, compiled anew by every process. By default V8
 * also compiles it with its optimising compiler, which a command that runs a handful of statements
 * never repays: measured with `--liftoff-only` (V8's baseline compiler alone), `list_cas` used about
 * 40 % less CPU and ~90 MiB less memory, and `migrate` on a new database (initdb and every migration)
 * still about 30 % less CPU (bench/cli.ts). Set here, in the process entry, before any WebAssembly is
 * compiled (the flag is read at compilation); not in `runCaAdmin`, which runs inside other processes.
 */
export function main(): void {
  v8.setFlagsFromString('--liftoff-only');
  runCaAdmin(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: environment(), stdin: process.stdin }).then(
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
