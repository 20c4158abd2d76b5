/**
 * The default `SecretBox` (lib/ports/acme.ts): secrets the store keeps — the MAC keys of ACME external
 * account bindings — sealed under the key-encryption key, in the same envelope as the CA keys
 * (kek.ts), so that a database dump holds none of them readable. Sealed values name their KEK;
 * after `ca-admin rotate_kek` unused binding keys sealed under the old KEK no longer open (README "ACME").
 */
import type { SecretBox } from '../../lib/ports';
import { decryptKey, encryptKey, parseEnvelope, type Kek } from './kek';

export function kekSecretBox(kek: Kek): SecretBox {
  return {
    seal: (secret) => encryptKey(kek, secret),
    open: (sealed) => decryptKey(kek, parseEnvelope(sealed)),
  };
}
