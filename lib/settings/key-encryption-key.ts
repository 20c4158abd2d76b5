/**
 * `CA_KEY_ENCRYPTION_KEY` (docs/reference/environment.md): the key every CA key (and every sealed secret) in the store
 * is encrypted under, 32 bytes in base64. Read here; the key backend (adapters/keys/kek.ts) checks
 * and uses the value it is given, and `defaultKeyBackend()` without one asks for this setting.
 */
import type { Env } from './switch';

export const KEK_VARIABLE = 'CA_KEY_ENCRYPTION_KEY';

/** The value as given; null when unset or empty (a malformed one is the key backend's error). */
export function keyEncryptionKeySetting(env: Env): string | null {
  return env[KEK_VARIABLE] || null;
}
