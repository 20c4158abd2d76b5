/**
 * Renewal information (ARI, RFC 9773): an unauthenticated GET of `renewal-info/{certID}`, where
 * certID is base64url(authority key identifier) "." base64url(serial number DER content); the
 * suggested window is lib/acme/renewal-window.ts's.
 */
import { sanitizeSerial } from '../../http/path-matcher';
import { decodeBase64url } from '../encoding';
import { malformed, notFound } from '../problems';
import { timestamp } from '../objects';
import { suggestedRenewalWindow } from '../renewal-window';
import type { AcmeAnswer, AcmeCall } from '../route-types';

/** How often a client should ask again (RFC 9773 §4.3 suggests a few hours). */
const RETRY_AFTER_S = 6 * 60 * 60;

export async function renewalInfo(call: AcmeCall): Promise<AcmeAnswer> {
  const { services, ca, params, now } = call;
  const [aki, serialPart] = params.cert_id.split('.');
  const serialBytes = decodeBase64url(serialPart);
  if (!decodeBase64url(aki) || !serialBytes || serialBytes.length === 0 || serialBytes.length > 20) {
    throw malformed('The certificate identifier must be base64url(keyIdentifier) "." base64url(serial) (RFC 9773 §4.1).');
  }
  const serial = sanitizeSerial(serialBytes.toString('hex'));
  const cert = await services.store.findCertificate(ca.id, serial);
  if (!cert) throw notFound('Certificate not found.');
  const window = suggestedRenewalWindow(cert, now);
  return {
    status: 200,
    body: { suggestedWindow: { start: timestamp(window.start), end: timestamp(window.end) } },
    headers: { 'Retry-After': String(RETRY_AFTER_S) },
  };
}
