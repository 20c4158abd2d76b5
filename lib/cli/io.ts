/** What a command may touch of the outside world; tests pass their own (runCli is in-process). */
import type { Store } from '../ports';
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
  /** Key backends by alias; default: the built-in backend as `default`. */
  keyBackends?: KeyBackends;
  /** bcrypt cost for create_api_user (tests lower it). */
  bcryptCost?: number;
}

export async function readAll(input: CliInput): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
