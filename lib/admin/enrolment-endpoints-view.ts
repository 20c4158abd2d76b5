/**
 * A CA's enrolment endpoints kept in the database (README "EST", "Endpoints in the database"), as its
 * page lists them: read only — `ca-admin *_enrolment_endpoint` manages them. Never a challenge: the
 * store keeps only its hash, and the page says only whether there is one.
 */
import { hasEnrolmentEndpointStore, type CaRecord, type Store, type StoredEnrolmentEndpoint } from '../ports';
import { html, type Html } from './html';
import { dataTable } from './table';

/** The stored endpoints of `ca`, by protocol and label; null when the store keeps none. */
export async function caEnrolmentEndpoints(store: Store, ca: CaRecord): Promise<StoredEnrolmentEndpoint[] | null> {
  if (!hasEnrolmentEndpointStore(store)) return null;
  return (await store.enrolmentEndpoints.listEnrolmentEndpoints()).filter((e) => e.caId === ca.id);
}

function names(e: StoredEnrolmentEndpoint): string {
  if (!e.names) return 'any';
  const parts = [`allow ${e.names.allow.join(', ') || '(any)'}`, `deny ${e.names.deny.join(', ') || '(none)'}`];
  if (e.names.subjectAttributes) parts.push(`subject ${e.names.subjectAttributes.join(', ')}`);
  return parts.join('; ');
}

/** The section of the CA's page; nothing when the store keeps no endpoints. */
export function enrolmentEndpointsSection(endpoints: StoredEnrolmentEndpoint[] | null): Html | null {
  if (endpoints === null) return null;
  const rows = endpoints.map(
    (e) =>
      html`<td>${e.protocol}</td>
        <td class="mono">${e.label}</td>
        <td>${e.profile ?? 'default'}</td>
        <td>${e.challengeWebhook ? 'webhook' : e.challengeSha256 ? 'static' : 'none'}</td>
        <td>${e.approval ? 'yes' : 'no'}</td>
        <td>${names(e)}</td>
        <td>${e.validityDays === null ? 'default' : `${e.validityDays} days`}</td>
        <td>${e.requestsPerMinute ?? 'no limit'}</td>
        <td>${e.enabled ? 'enabled' : 'disabled'}</td>`,
  );
  return html`<h2>Enrolment endpoints</h2>
    ${
      rows.length
        ? dataTable(
            'Enrolment endpoints kept in the database',
            ['Protocol', 'Label', 'Profile', 'Challenge', 'Approval', 'Names', 'Validity', 'Requests a minute', 'State'],
            rows,
          )
        : html`<p>None kept in the database (<code>ca-admin create_enrolment_endpoint</code> adds one).</p>`
    }`;
}
