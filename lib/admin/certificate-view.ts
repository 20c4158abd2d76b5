/**
 * How a certificate is shown: its status (as django-ca's admin names it, with the revocation reason
 * and "expires in N days"), its primary name (the first subjectAltName, else the CN — some
 * certificates have neither), its subjectAltNames as `DNS: name` lines, and serials with colons.
 */
import { DAY_MS } from '../x509/datetime';
import type { CertificateRecord } from '../ports';
import type { GeneralName } from '../x509/types';
import { serialToColons } from '../x509/serial-format';
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

export const colonSerial = (serial: string): string => serialToColons(serial);

export const isoDay = (d: Date): string => d.toISOString().slice(0, 10);
export const isoTime = (d: Date): string => `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
