/**
 * What the certificate page adds about where a certificate came from and what happened to it (docs/guides/admin-interface.md):
 * the ACME order that issued it, with its account (`findOrderOfCertificate`), and
 * its audit records — issued, revoked, … (docs/operations/audit-and-events.md "Audit") — for users with `view_auditlog` only, as
 * the audit log itself (they name users and addresses).
 */
import { hasAcmeStore, type AuditRow, type CaRecord, type CertificateRecord, type Store } from '../ports';
import { holdsGlobal } from './access';
import { isoTime, timeText } from './certificate-view';
import type { SignedInContext } from './context';
import { html, type Html } from './html';
import { dataTable } from './table';

/** The most records shown (the newest); the audit log page has the rest. */
const HISTORY_ROWS = 50;

/** The issuing ACME order as a few lines, or null when the certificate did not come through ACME. */
export async function issuingOrder(ctx: SignedInContext, ca: CaRecord, cert: CertificateRecord): Promise<Html | null> {
  const store: Store = ctx.services.store;
  if (!hasAcmeStore(store)) return null;
  const order = await store.acme.findOrderOfCertificate(cert.id);
  if (!order) return null;
  const account = (await store.acme.listAccounts(order.caId)).find((a) => a.id === order.accountId);
  return html`<dt>ACME order</dt>
    <dd>
      <span class="mono">${order.slug}</span> (${order.status}, created ${isoTime(order.created)}), account
      <a href="${ctx.base}cas/${ca.serial}/acme/"><span class="mono">${account?.slug ?? order.accountId}</span></a
      >${account?.contact.length ? ` (${account.contact.join(', ')})` : ''}
    </dd>`;
}

function actorText(row: AuditRow): string {
  try {
    const a = JSON.parse(row.actorText) as Record<string, unknown>;
    return [a.type, a.name ?? a.id, a.protocol && `over ${String(a.protocol)}`].filter(Boolean).join(' ');
  } catch {
    return row.actorText;
  }
}

/** The certificate's audit records, newest first (as the audit log); null for a user without `view_auditlog`. */
export async function certificateHistory(ctx: SignedInContext, ca: CaRecord, cert: CertificateRecord): Promise<Html | null> {
  const store: Store = ctx.services.store;
  if (!(await holdsGlobal(ctx, 'view_auditlog'))) return null;
  const rows = await store.auditLog.auditRows({ caSerial: ca.serial, serial: cert.serial, newestFirst: true, limit: HISTORY_ROWS });
  return html`<h2>History</h2>
    ${
      rows.length
        ? dataTable(
            'Audit records of this certificate, newest first',
            ['Time', 'Event', 'By'],
            rows.map(
              (r) =>
                html`<td>${timeText(r.created)}</td>
                  <td>${r.type}</td>
                  <td class="long">${actorText(r)}</td>`,
            ),
          )
        : html`<p>No audit record names this certificate.</p>`
    }`;
}
