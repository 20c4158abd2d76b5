/**
 * The default `SecretBox` (lib/ports/acme.ts): secrets the store keeps — the MAC keys of ACME external
 * account bindings — sealed under the key-encryption key, in the same envelope as the CA keys
 * (kek.ts), so that a database dump holds none of them readable. Sealed values name their KEK;
 * after `ca-admin rotate_kek` unused binding keys sealed under the old KEK no longer open (docs/guides/acme.md).
 */
import type { SecretBox } from '../../lib/ports';
import { keyEncryptionKeySetting } from '../../lib/settings/key-encryption-key';
import { decryptKey, encryptKey, loadKek, parseEnvelope, type Kek } from './kek';

export function kekSecretBox(kek: Kek): SecretBox {
  return {
    seal: (secret) => encryptKey(kek, secret),
    open: (sealed) => decryptKey(kek, parseEnvelope(sealed)),
  };
}

/**
 * The box under `CA_KEY_ENCRYPTION_KEY` of `env` — the router's default and `ca-admin
 * create_acme_eab_key`'s, so that the server opens what the command sealed; null when it is unset or
 * empty (a malformed one is an error).
 */
export function envKekSecretBox(env: Record<string, string | undefined>): SecretBox | null {
  const kek = loadKek(keyEncryptionKeySetting(env) ?? '');
  return kek ? kekSecretBox(kek) : null;
}
