/**
 * External account binding keys (RFC 8555 §7.3.4), made by the operator (`ca-admin
 * create_acme_eab_key`, or code): a key id and a MAC key handed to one ACME client, which binds its new
 * account to it. The store keeps the MAC key sealed (`SecretBox`), and each key binds one account.
 */
import { randomBytes } from 'crypto';
import type { AcmeStore, CaRecord, SecretBox } from '../../ports';

/** A new key: `kid` and the MAC key, base64url, as clients take them (certbot `--eab-kid`/`--eab-hmac-key`). */
export async function createAcmeEabKey(acme: AcmeStore, box: SecretBox, ca: CaRecord): Promise<{ kid: string; hmac: string }> {
  const kid = randomBytes(18).toString('base64url');
  const secret = randomBytes(32);
  await acme.createEabKey({ kid, caId: ca.id, sealed: box.seal(secret) });
  return { kid, hmac: secret.toString('base64url') };
}
