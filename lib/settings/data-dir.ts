/**
 * `CA_DATA_DIR` (docs/guides/getting-started.md): where the example server keeps what its database cannot —
 * among it, when `CA_KEY_ENCRYPTION_KEY` is not set, the development key-encryption key that every CA
 * key it made is encrypted under. `ca-admin` reads the same setting to point an operator at that file
 * instead of at a new key, which would open none of the stored keys.
 */
import * as path from 'path';
import type { Env } from './switch';

export const DEFAULT_DATA_DIR = './.ca-data';
/** The file in the data directory that holds the development key-encryption key (base64, one line). */
export const DEVELOPMENT_KEK_FILE = 'dev-key-encryption-key';

/** `CA_DATA_DIR` as given (relative to the working directory), default `./.ca-data`. */
export function dataDirSetting(env: Env): string {
  return env.CA_DATA_DIR || DEFAULT_DATA_DIR;
}

/** Where the development key-encryption key of `dataDir` is (or would be) kept. */
export function developmentKekPath(dataDir: string): string {
  return path.join(dataDir, DEVELOPMENT_KEK_FILE);
}
