/**
 * The confirmation after signing (docs/guides/admin-interface.md): the Issue and Resign forms answer their
 * POST with a redirect to the new certificate's page (POST/redirect/GET: a reload signs nothing
 * again), carrying this query, and that page then says the certificate was issued. The query only
 * chooses the words: the page shows the certificate as stored either way.
 */
import type { CertificateRecord } from '../ports';
import { colonSerial, isoTime } from './certificate-view';
import { html, type Html } from './html';

export const ISSUED_NOTICE = 'issued=1';

/** The notice, when the page was reached from a form that signed; else null. */
export function issuedNotice(query: Readonly<Record<string, unknown>>, cert: CertificateRecord): Html | null {
  if (query.issued !== '1') return null;
  return html`<p class="message ok" role="status">
    Certificate issued. Serial ${colonSerial(cert.serial)}, valid from ${isoTime(cert.notBefore)} to ${isoTime(cert.notAfter)}.
  </p>`;
}
