/**
 * The issue page's fields as an operator types them, and what the CSR says: subjectAltNames one per
 * line as `DNS:name`, `IP:address`, `email:address`, `URI:uri` (a bare name is a DNS name), the
 * subject as an RFC 4514 string (several OU or DC values allowed).
 */
import type { ParsedCsr } from '../x509/csr';
import { DAY_MS } from '../x509/datetime';
import { parseGeneralName } from '../x509/general-name';
import { generalNameText } from '../x509/readable/text';
import { formatRfc4514 } from '../x509/rfc4514';
import type { GeneralName } from '../x509/types';
import { keyText } from './certificate-view';

const TYPES: Record<string, GeneralName['type']> = { dns: 'DNS', ip: 'IP', email: 'email', uri: 'URI' };

/** The lines as general names (validated and normalised: IDNA, canonical IPs); throws X509Error on a bad one. */
export function sanLines(text: string): GeneralName[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const colon = line.indexOf(':');
      const type = colon > 0 ? TYPES[line.slice(0, colon).trim().toLowerCase()] : undefined;
      return parseGeneralName(type ? { type, value: line.slice(colon + 1).trim() } : { type: 'DNS', value: line });
    });
}

/** What the CSR asks for, as the form's text fields. */
export function fieldsFromCsr(csr: ParsedCsr): { subject: string; san: string } {
  const ext = csr.requestedExtensions.find((e) => e.type === 'subject_alternative_name');
  const names = Array.isArray(ext?.value) ? (ext.value as GeneralName[]) : [];
  const lines = names.map((n) =>
    n.type === 'DNS' || n.type === 'IP' || n.type === 'email' || n.type === 'URI' ? `${n.type}:${n.value}` : generalNameText(n),
  );
  return { subject: formatRfc4514(csr.subject), san: lines.join('\n') };
}

/** The CSR's key in words, as a certificate's page shows a certificate's (`EC P-256`). */
export const csrKeyText = (csr: ParsedCsr): string => keyText(csr.publicKey);

/** A profile's lifetime in days, as the days field takes it (what an empty field signs with) and the profiles page shows it. */
export function lifetimeText(ms: number): string {
  const days = Math.round((ms / DAY_MS) * 100) / 100;
  return days === 1 ? '1 day' : `${days} days`;
}
