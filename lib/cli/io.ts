/** What a command may touch of the outside world; tests pass their own (runCli is in-process). */
import type { SecretBox, Store } from '../ports';
import type { KeyBackends } from '../ca/key-backends';

export interface CliStream {
  write(chunk: string | Uint8Array): unknown;
}

export interface CliInput extends AsyncIterable<string | Buffer> {
  isTTY?: boolean;
}

export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: Record<string, string | undefined>;
  stdin?: CliInput;
  /** Use this store instead of opening DATABASE_URL (it is then neither migrated nor closed). */
  store?: Store;
  /**
   * Open (and, unless `migrate: false`, migrate) the store named by `DATABASE_URL` when no `store` is
   * given; it is closed when the command ends. The CLI's entry (main.ts) passes the knex store. The
   * `migrate` command opens it unmigrated, to count what it applies.
   */
  openStore?: (databaseUrl: string | undefined, options?: { migrate?: boolean }) => Promise<Store>;
  /** Key backends by alias, or how to make them from the environment (main.ts: the built-in backend). */
  keyBackends?: KeyBackends | ((env: Record<string, string | undefined>) => KeyBackends);
  /**
   * Seals the MAC keys of ACME external account bindings (create_acme_eab_key), or how to make it from
   * the environment — null when the environment has no key to seal with. main.ts: under
   * `CA_KEY_ENCRYPTION_KEY`, which the ACME server's default box opens them with.
   */
  secretBox?: SecretBox | null | ((env: Record<string, string | undefined>) => SecretBox | null);
  /**
   * `ca-admin backup`: the embedded database of `databaseUrl` into `file` (main.ts: PGlite's dump,
   * adapters/store/embedded-backup.ts); `byProcess` is the running server that wrote it, if one did.
   */
  backupDatabase?: (databaseUrl: string | undefined, file: string) => Promise<{ file: string; bytes: number; byProcess: number | null }>;
  /** `ca-admin restore`: a backup unpacked into a new, empty directory (nothing left there on failure). */
  restoreDatabase?: (file: string, directory: string) => Promise<void>;
  /** bcrypt cost for create_api_user (tests lower it). */
  bcryptCost?: number;
}

export async function readAll(input: CliInput): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
