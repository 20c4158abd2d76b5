/**
 * `ca-admin` without `CA_KEY_ENCRYPTION_KEY` on the example server's data (docs/guides/getting-started.md):
 * the server encrypted every CA key under the development key-encryption key it keeps in its data
 * directory (`CA_DATA_DIR`, default `./.ca-data`), and a new key (`openssl rand -base64 32`) would
 * open none of them. When that file is there, the error names it and the line that sets the key.
 */
import * as fs from 'fs';
import { CaError } from '../ca/errors';
import { dataDirSetting, developmentKekPath, keyEncryptionKeySetting } from '../settings';

/**
 * The key backend's "no key-encryption key" error (adapters/keys: `KeyBackendError`, code `no-kek`)
 * or the command's own (context.ts `secretBox`), recognised by their code: this layer imports no adapter;
 * also as the cause of the error that reports it.
 */
function isMissingKek(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (!(e instanceof Error)) return false;
  if (code === 'no-kek' || (e instanceof CaError && /^No key-encryption key\b/.test(e.message))) return true;
  // A key the backend could not open is reported as KeyBackendUnavailableError (lib/ca/key-backends.ts
  // `openSigner`), with the backend's own error as its cause.
  return e.cause !== undefined && isMissingKek(e.cause);
}

/** A shell word: the path as it is when it needs no quoting, else in single quotes. */
const shellWord = (text: string) => (/^[A-Za-z0-9_./~-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/** The development key's file when the environment has no key-encryption key and the data directory holds one. */
export function developmentKekFile(env: Record<string, string | undefined>): string | null {
  if (keyEncryptionKeySetting(env)) return null;
  const file = developmentKekPath(dataDirSetting(env));
  return fs.existsSync(file) ? file : null;
}

/** `failure`, or — for a missing key-encryption key with a development key at hand — an error that says how to use it. */
export function withDevelopmentKekHint(failure: unknown, env: Record<string, string | undefined>): unknown {
  if (!isMissingKek(failure)) return failure;
  const file = developmentKekFile(env);
  if (!file) return failure;
  return new CaError(
    'invalid',
    `No key-encryption key: CA_KEY_ENCRYPTION_KEY is not set, and the data directory holds the example server's ` +
      `development key-encryption key, ${file}, which its CA keys are encrypted under. Use it: ` +
      `export CA_KEY_ENCRYPTION_KEY=$(cat ${shellWord(file)})`,
  );
}
