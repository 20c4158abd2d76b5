/**
 * revokeCert (RFC 8555 §7.6): signed by the account that ordered the certificate or by the
 * certificate's own key; the rules and the revocation are the service's (lib/acme/revocation.ts).
 */
import { decodeBase64url, isJsonObject, ownMember } from '../encoding';
import { malformed } from '../problems';
import { revokeFromAcme } from '../revocation';
import type { AcmeAnswer, AcmeCall } from '../route-types';

export async function revoke(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, ca, jws, account, now } = call;
  const payload = jws?.payload;
  if (!jws || !isJsonObject(payload)) throw malformed('The payload must be a JSON object.');
  const der = typeof payload.certificate === 'string' ? decodeBase64url(payload.certificate) : null;
  if (!der) throw malformed('"certificate" must be the certificate in base64url DER.');
  const revocation = { der, reasonCode: ownMember(payload, 'reason') ?? 0, signer: jws.signer, account, address: call.req.ip };
  await revokeFromAcme(services, ca, revocation, now);
  return { status: 200, body: {} };
}
