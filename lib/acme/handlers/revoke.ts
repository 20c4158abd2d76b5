/**
 * revokeCert (RFC 8555 §7.6): signed by the account that ordered the certificate — at any time, not
 * only while the order is kept, as in the original — or by the certificate's own key (any key type a
 * JWS can carry). Through the revocation service of lib/ca, like a REST revocation: visible in OCSP
 * and the CRLs at once.
 */
import crypto from 'crypto';
import { revokeCert } from '../../ca/revocation';
import { CRL_REASON_CODES } from '../../x509/revocation/reasons';
import { parseCertificate } from '../../x509/certificate';
import { decodeBase64url, isJsonObject, ownMember } from '../encoding';
import { acmeActor } from '../issue';
import { alreadyRevoked, badRevocationReason, malformed, unauthorized } from '../problems';
import type { AcmeAnswer, AcmeCall } from '../route-types';

/** RFC 5280 §5.3.1 code → stored name; 7 is unused and removeFromCRL (8) belongs to delta CRLs only. */
const REASONS: ReadonlyMap<number, string> = new Map(
  Object.entries(CRL_REASON_CODES)
    .filter(([name]) => name !== 'remove_from_crl')
    .map(([name, code]) => [code, name]),
);

export async function revoke(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, ca, jws, account, now } = call;
  const payload = jws?.payload;
  if (!jws || !isJsonObject(payload)) throw malformed('The payload must be a JSON object.');
  const der = typeof payload.certificate === 'string' ? decodeBase64url(payload.certificate) : null;
  if (!der) throw malformed('"certificate" must be the certificate in base64url DER.');
  const reasonCode = ownMember(payload, 'reason') ?? 0;
  const reason = typeof reasonCode === 'number' ? REASONS.get(reasonCode) : undefined;
  if (!reason) throw badRevocationReason(`${String(reasonCode)}: Unsupported revocation reason.`);
  let serial: string;
  try {
    serial = parseCertificate(der).serial;
  } catch {
    throw malformed('The certificate cannot be parsed.');
  }
  const cert = await services.store.findCertificate(ca.id, serial);
  if (!cert || cert.notAfter <= now) throw unauthorized('Certificate not found.');
  if (!cert.der.equals(der)) throw unauthorized('Certificate does not match records.');

  if (jws.signer.kind === 'jwk') {
    const spki = jws.signer.key.export({ type: 'spki', format: 'der' });
    const certificateKey = new crypto.X509Certificate(cert.der).publicKey.export({ type: 'spki', format: 'der' });
    if (!spki.equals(certificateKey)) throw unauthorized('Request signed by the wrong certificate.');
  } else {
    const order = await services.acme.findOrderOfCertificate(cert.id);
    if (!account || !order || order.accountId !== account.id) throw unauthorized('The account did not order this certificate.');
  }
  if (cert.revoked) throw alreadyRevoked('The certificate is already revoked.');
  // The client's address too, for the audit log (README "Audit").
  const from = call.req.ip ? { address: call.req.ip } : {};
  const actor = { ...(account ? acmeActor(account.id) : { type: 'certificate_key', protocol: 'acme' }), ...from };
  await revokeCert(services.store, cert, { reason, actor, now });
  return { status: 200, body: {} };
}
