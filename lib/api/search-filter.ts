/**
 * The search filters of `GET /ca/{serial}/certs/` (docs/guides/rest-api.md "Listing and searching certificates"), from
 * the validated query. `serial` is a prefix, written as serials are (colons and leading zeros allowed).
 */
import { sanitizeSerial } from '../http/path-matcher';
import type { CertificateFilter } from '../ports';

export function searchFilter(query: Record<string, unknown>): Partial<CertificateFilter> {
  const filter: Partial<CertificateFilter> = {};
  if (typeof query.subject === 'string') filter.subject = query.subject;
  if (typeof query.san === 'string') filter.san = query.san;
  if (typeof query.serial === 'string') filter.serialPrefix = sanitizeSerial(query.serial);
  if (typeof query.not_after_before === 'string') filter.notAfterBefore = new Date(query.not_after_before);
  if (typeof query.not_after_after === 'string') filter.notAfterAfter = new Date(query.not_after_after);
  return filter;
}
