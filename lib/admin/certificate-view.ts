/**
 * How a certificate is shown: its status (as django-ca's admin names it, with the revocation reason
 * and "expires in N days"), its primary name (the first subjectAltName, else the CN — some
 * certificates have neither), its subjectAltNames as `DNS: name` lines, its key (`EC P-256`), serials
 * with colons and times as `2026-12-06 08:31:42 UTC` — one form of each on every page (docs/guides/admin-interface.md).
 */
import { OFFERED_CURVES } from '../x509/curves';
import { DAY_MS } from '../x509/datetime';
import type { CertificateRecord } from '../ports';
import { parseCertificate } from '../x509/certificate';
import type { PublicKeyInfo } from '../x509/public-key';
import type { GeneralName } from '../x509/types';
import { normaliseSerial, serialToColons } from '../x509/serial-format';
export { generalNameText } from '../x509/readable/text';

export interface Status {
  /** CSS class of the badge. */
  kind: 'valid' | 'expiring' | 'expired' | 'revoked' | 'not-yet-valid';
  text: string;
}

/** A valid certificate this close to its end is flagged. */
export const EXPIRING_WITHIN_DAYS = 30;

export function statusOf(cert: CertificateRecord, now: Date): Status {
  if (cert.revoked) return { kind: 'revoked', text: `Revoked: ${cert.revokedReason.replace(/_/g, ' ') || 'unspecified'}` };
  if (cert.notAfter.getTime() <= now.getTime()) return { kind: 'expired', text: 'Expired' };
  if (cert.notBefore.getTime() > now.getTime()) return { kind: 'not-yet-valid', text: 'Not yet valid' };
  const days = Math.floor((cert.notAfter.getTime() - now.getTime()) / DAY_MS);
  if (days <= EXPIRING_WITHIN_DAYS) return { kind: 'expiring', text: `Expires in ${days} d` };
  return { kind: 'valid', text: 'Valid' };
}

export function subjectAltNames(cert: CertificateRecord): GeneralName[] {
  const ext = cert.certificate.extensions.find((e) => e.type === 'subject_alternative_name');
  return Array.isArray(ext?.value) ? (ext.value as GeneralName[]) : [];
}

export function primaryName(cert: CertificateRecord): string {
  const first = subjectAltNames(cert)[0];
  if (first && typeof first.value === 'string') return first.value;
  return cert.cn || '(no name)';
}

/**
 * A serial as every page shows it: upper-case hex bytes joined by colons, as django-ca's admin and
 * `ca-admin` display them (`4E:1F:…`); the REST API and the URLs carry the same digits without colons.
 * Text that is no serial is shown as it is.
 */
export const colonSerial = (serial: string): string => (normaliseSerial(serial) === null ? serial : serialToColons(serial));

export const isoDay = (d: Date): string => d.toISOString().slice(0, 10);
/** A time as every page shows it: `2026-12-06 08:31:42 UTC` (to the second). */
export const isoTime = (d: Date): string => `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** A stored time text (the audit log's `2026-11-25T21:43:03.123456Z`, UTC) as `isoTime` shows it; other text as it is. */
export function timeText(utc: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.\d+)?(?:Z|\+00(?::?00)?)$/.exec(utc);
  return m ? `${m[1]} ${m[2]} UTC` : utc;
}

/** A public key in words: `RSA 2048`, `EC P-256`, `Ed25519` (an EC curve the API does not offer: `EC 233 bits`). */
export function keyText(key: Pick<PublicKeyInfo, 'keyType' | 'keySize' | 'curve'>): string {
  switch (key.keyType) {
    case 'EC':
      return key.curve ? `EC ${OFFERED_CURVES[key.curve].jwk.crv}` : `EC ${key.keySize} bits`;
    case 'RSA':
    case 'DSA':
      return `${key.keyType} ${key.keySize}`;
    default:
      return key.keyType;
  }
}

/** The certificate's public key in words (`keyText`). */
export const certificateKeyText = (cert: Pick<CertificateRecord, 'der'>): string => keyText(parseCertificate(cert.der).publicKey);
