/**
 * Moving the default backend's stored keys to a new key-encryption key (`ca-admin rotate_kek`).
 *
 * Each stored key is decrypted under the current KEK and encrypted again, with a fresh IV, under the
 * new one; the plaintext only ever lives in a buffer that is wiped at once. A key already under the
 * new KEK is left alone (after checking that the new KEK opens it), so that running the rotation
 * again — say, for a CA created by a server that still had the old KEK — finishes the job. Anything
 * else (a third KEK, a damaged ciphertext) is an error: the caller then changes nothing. The secrets
 * sealed under the same KEK (secret-box.ts) move the same way (`reseal`).
 */
import type { KekRotation } from '../../lib/ports';
import { KeyBackendError } from './errors';
import { decryptKey, encryptKey, KEK_ENV, loadKek, missingKekError, parseEnvelope, type EncryptedKeyEnvelope, type Kek } from './kek';

export function kekRotation(current: Kek | null, newKek: string | Buffer): KekRotation {
  if (!current) throw missingKekError();
  const next = loadKek(newKek);
  if (!next) throw new KeyBackendError('bad-kek', 'The new key-encryption key is empty.');
  if (next.id === current.id) {
    throw new KeyBackendError('bad-kek', `The new key-encryption key is the one in use (${KEK_ENV}, KEK ${current.id}).`);
  }
  /** `value` (an envelope) under the new KEK, or null when it is there already; `what` names it in errors. */
  const moved = (value: unknown, what: string): EncryptedKeyEnvelope | null => {
    const envelope = parseEnvelope(value);
    if (envelope.kekId === next.id) {
      decryptKey(next, envelope).fill(0); // proves the new KEK opens it (a damaged copy fails here)
      return null;
    }
    if (envelope.kekId !== current.id) {
      throw new KeyBackendError(
        'wrong-kek',
        `The ${what} is encrypted under key-encryption key ${envelope.kekId}, neither the current one (${current.id}) ` +
          `nor the new one (${next.id}).`,
      );
    }
    const plaintext = decryptKey(current, envelope);
    try {
      return encryptKey(next, plaintext);
    } finally {
      plaintext.fill(0);
    }
  };
  return {
    fromKekId: current.id,
    toKekId: next.id,
    rewrap(options: Record<string, unknown>): Record<string, unknown> | null {
      const privateKey = moved(options.privateKey, 'key');
      return privateKey ? { ...options, privateKey } : null;
    },
    // Webhook secrets and ACME binding keys are sealed in the same envelope (secret-box.ts).
    reseal: (sealed: unknown) => moved(sealed, 'secret'),
  };
}
