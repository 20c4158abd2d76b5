/**
 * Certificates as CSV, one line per certificate, for spreadsheets: `ca-admin list_certs --format csv`
 * and the admin interface's export (docs/guides/admin-interface.md) write the same columns with this one
 * function. Fields are quoted as RFC 4180 says; a field that starts with `=`, `+`, `-`, `@`, a tab or
 * a carriage return gets a leading `'` first, so that a spreadsheet shows a name such as
 * `=HYPERLINK(...)` as text instead of running it as a formula (docs/guides/admin-interface.md).
 */
import type { CertificateRecord } from '../ports';
import { serialToColons } from '../x509/serial-format';
import { exactJsonText } from '../x509/certificate-json';

/** Characters a spreadsheet may read as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** RFC 4180 field, neutralised first: `'` before a formula start; quoted when it holds a comma, quote or line break. */
export function csvField(value: string): string {
  const v = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** The header line, with its CRLF. */
export const CERTIFICATES_CSV_HEADER =
  ['serial', 'common_name', 'ca', 'profile', 'not_before', 'not_after', 'revoked', 'revoked_reason', 'subject_alternative_names'].join(
    ',',
  ) + '\r\n';

/** One certificate's line, with its CRLF; SAN values separated by spaces, each as `TYPE:value`. */
export function certificateCsvLine(c: CertificateRecord, caName: string): string {
  const san = c.certificate.extensions.find((e) => e.type === 'subject_alternative_name');
  const names = Array.isArray(san?.value) ? (san.value as { type: string; value: unknown }[]) : [];
  const fields = [
    serialToColons(c.serial),
    c.cn,
    caName,
    c.profile,
    c.notBefore.toISOString(),
    c.notAfter.toISOString(),
    c.revoked ? 'true' : 'false',
    c.revokedReason,
    names.map((n) => `${n.type}:${typeof n.value === 'string' ? n.value : exactJsonText(n.value)}`).join(' '),
  ];
  return fields.map(csvField).join(',') + '\r\n';
}

/** The header and a line per certificate; a CA missing from `caNames` is named by its id. */
export function certificatesCsv(certs: readonly CertificateRecord[], caNames: ReadonlyMap<number, string>): string {
  return CERTIFICATES_CSV_HEADER + certs.map((c) => certificateCsvLine(c, caNames.get(c.caId) ?? String(c.caId))).join('');
}
