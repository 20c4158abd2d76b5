/**
 * The `san_search` column (migration 0003: the subjectAltName values, lower-case, one per line, for
 * the `san` list filter) computed here, where that gives exactly the text the database's
 * `ca_api_san_search` would: when every value is a string of printable ASCII without upper-case
 * letters, for which PostgreSQL's `lower()` is the identity whatever the database's locale. Otherwise
 * null, and the trigger computes it (migration 0015). The trigger's JSON walk was the largest single
 * cost of storing a certificate (docs/DESIGN.md "Issuance throughput").
 */
import type { CertificateJson } from '../../../lib/x509/types';

/** Printable ASCII but `A`–`Z`. */
const LOWER_PRINTABLE_ASCII = /^[\x20-\x40\x5b-\x7e]*$/;

export function sanSearchText(certificate: CertificateJson): string | null {
  const extensions: unknown = certificate.extensions;
  if (!Array.isArray(extensions)) return null;
  const values: string[] = [];
  for (const extension of extensions as { type?: unknown; value?: unknown }[]) {
    if (extension?.type !== 'subject_alternative_name') continue;
    if (!Array.isArray(extension.value)) return null;
    for (const name of extension.value as { value?: unknown }[]) {
      const value = name?.value;
      if (typeof value !== 'string' || !LOWER_PRINTABLE_ASCII.test(value)) return null;
      values.push(value);
    }
  }
  return values.join('\n');
}
