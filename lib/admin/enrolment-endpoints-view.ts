/**
 * A CA's enrolment endpoints kept in the database (docs/guides/est.md, docs/guides/est.md "Endpoints in the database"), as its
 * page and the endpoints' own page (handlers/enrolment-endpoints.ts, which adds each one's actions)
 * list them. Never a challenge: the store keeps only its hash, and the page says only whether there is one.
 */
import { challengeKind } from '../enrolment/stored-endpoints';
import type { CaRecord, Store, StoredEnrolmentEndpoint } from '../ports';
import { html, type Html } from './html';
import { dataTable } from './table';

/** The stored endpoints of `ca`, by protocol and label; null when the store keeps none. */
export async function caEnrolmentEndpoints(store: Store, ca: CaRecord): Promise<StoredEnrolmentEndpoint[] | null> {
  return (await store.enrolmentEndpoints.listEnrolmentEndpoints()).filter((e) => e.caId === ca.id);
}

function names(e: StoredEnrolmentEndpoint): string {
  if (!e.names) return 'any';
  const parts = [`allow ${e.names.allow.join(', ') || '(any)'}`, `deny ${e.names.deny.join(', ') || '(none)'}`];
  if (e.names.subjectAttributes) parts.push(`subject ${e.names.subjectAttributes.join(', ')}`);
  return parts.join('; ');
}

/**
 * The section of the CA's page; nothing when the store keeps no endpoints. `manage`: each label a link
 * to its edit page, and a last column of actions (apart from the link, so that each is a target of
 * its own, WCAG 2.2 §2.5.8).
 */
export function enrolmentEndpointsSection(
  endpoints: StoredEnrolmentEndpoint[] | null,
  manage?: { editUrl: (e: StoredEnrolmentEndpoint) => string; actions: (e: StoredEnrolmentEndpoint) => Html },
): Html | null {
  if (endpoints === null) return null;
  const label = (e: StoredEnrolmentEndpoint): Html | string =>
    manage ? html`<a href="${manage.editUrl(e)}" aria-label="Edit ${e.protocol} ${e.label}">${e.label}</a>` : e.label;
  const rows = endpoints.map(
    (e) =>
      html`<td>${e.protocol}</td>
        <td class="mono">${label(e)}</td>
        <td>${e.profile ?? 'default'}</td>
        <td>${challengeKind(e)}</td>
        <td>${e.approval ? 'yes' : 'no'}</td>
        <td>${names(e)}</td>
        <td>${e.validityDays === null ? 'default' : `${e.validityDays} days`}</td>
        <td>${e.requestsPerMinute ?? 'no limit'}</td>
        <td>${e.enabled ? 'enabled' : 'disabled'}</td>
        ${manage ? html`<td>${manage.actions(e)}</td>` : null}`,
  );
  return html`<h2>Enrolment endpoints</h2>
    ${
      rows.length
        ? dataTable(
            'Enrolment endpoints kept in the database',
            [
              'Protocol',
              'Label',
              'Profile',
              'Challenge',
              'Approval',
              'Names',
              'Validity',
              'Requests a minute',
              'State',
              ...(manage ? ['Actions'] : []),
            ],
            rows,
          )
        : html`<p>None kept in the database (added here or with <code>ca-admin create_enrolment_endpoint</code>).</p>`
    }`;
}
