/**
 * The certificate list (README "Admin interface"): every certificate of the CAs the user may view,
 * or of one CA, searched by one box — a serial with or without colons, or a fragment of the common
 * name or of any subjectAltName — valid ones by default, those expiring or expired within a number of
 * days, revoked ones or all of them (the dashboard's figures link to these), with keyset paging by id
 * across CAs (`after`): each CA is asked for one page after the cursor, never for all its rows, and
 * the pages are merged in id order.
 */
import { DAY_MS } from '../../x509/datetime';
import type { CaRecord, CertificateFilter, CertificateRecord } from '../../ports';
import { normaliseSerial } from '../../x509/serial-format';
import { casWith } from '../access';
import { colonSerial, EXPIRING_WITHIN_DAYS, isoDay, primaryName, statusOf } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { sendPage } from '../page';
import { dataTable } from '../table';

const PAGE_SIZE = 50;
const MAX_DAYS = 36_500;

/** The status filter's choices: `days` bounds `expiring` (ahead of now) and `expired` (back from now). */
const LIST_STATUSES = ['valid', 'expiring', 'expired', 'revoked', 'all'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

const STATUS_LABELS: Record<ListStatus, string> = {
  valid: 'Valid',
  expiring: `Expiring within Days (else ${EXPIRING_WITHIN_DAYS})`,
  expired: 'Expired within Days (else any), not revoked',
  revoked: 'Revoked',
  all: 'All (expired and revoked too)',
};

export interface ListQuery {
  q: string;
  ca: string;
  status: ListStatus;
  /** 0 when not given: `expiring` then means within `EXPIRING_WITHIN_DAYS`, `expired` at any time. */
  days: number;
  after: number;
}

export function readListQuery(query: Record<string, unknown>): ListQuery {
  const text = (name: string): string => (typeof query[name] === 'string' ? (query[name] as string).trim().slice(0, 200) : '');
  const after = Number(text('after'));
  const days = Number(text('days'));
  const status = LIST_STATUSES.find((s) => s === text('status')) ?? 'valid';
  return {
    q: text('q'),
    ca: text('ca'),
    status,
    days: Number.isSafeInteger(days) && days > 0 && days <= MAX_DAYS ? days : 0,
    after: Number.isSafeInteger(after) && after > 0 ? after : 0,
  };
}

/** The query string of a list's filters (its links, its export): `days` only where it counts. */
export function listFilters(query: ListQuery): Record<string, string> {
  const counts = query.days > 0 && (query.status === 'expiring' || query.status === 'expired');
  return { q: query.q, ca: query.ca, status: query.status, ...(counts ? { days: String(query.days) } : {}) };
}

/** The store's filter for a status at `now` (the dashboard's figures count the same: lib/ports/certificate-statistics.ts). */
function statusFilter(query: ListQuery, now: Date): Partial<CertificateFilter> {
  const daysFromNow = (days: number): Date => new Date(now.getTime() + days * DAY_MS);
  switch (query.status) {
    case 'valid':
      return {};
    case 'expiring':
      return { notAfterBefore: daysFromNow(query.days || EXPIRING_WITHIN_DAYS) };
    case 'expired':
      return { onlyExpired: true, ...(query.days ? { notAfterAfter: daysFromNow(-query.days) } : {}) };
    case 'revoked':
      return { onlyRevoked: true, includeExpired: true };
    case 'all':
      return { includeExpired: true, includeRevoked: true };
  }
}

/** The filters one search box stands for: a serial prefix (when it looks like one), a CN fragment, a SAN fragment. */
function searches(q: string): Partial<CertificateFilter>[] {
  if (!q) return [{}];
  const out: Partial<CertificateFilter>[] = [{ subject: q }, { san: q }];
  const serial = /^[0-9A-Fa-f:]+$/.test(q) && q.replace(/:/g, '').length >= 2 ? normaliseSerial(q) : null;
  if (serial) out.push({ serialPrefix: serial });
  return out;
}

/** The CAs a list covers: those the user may view, or the one its `ca` filter names among them. */
export const listedCas = (viewable: CaRecord[], query: ListQuery): CaRecord[] =>
  query.ca ? viewable.filter((ca) => ca.serial === query.ca) : viewable;

/** One page after `after`, by id, over `cas`; and whether more follow. The CSV export (export.ts) reads it in larger pages. */
export async function listPage(
  ctx: SignedInContext,
  cas: CaRecord[],
  query: ListQuery,
  now: Date,
  pageSize = PAGE_SIZE,
): Promise<{ rows: CertificateRecord[]; more: boolean }> {
  const base = {
    ...statusFilter(query, now),
    now,
    afterId: query.after || undefined,
    limit: pageSize + 1,
  };
  const pages = await Promise.all(
    cas.flatMap((ca) => searches(query.q).map((search) => ctx.services.store.listCertificates({ ...base, ...search, caId: ca.id }))),
  );
  const byId = new Map<number, CertificateRecord>();
  for (const page of pages) for (const row of page) byId.set(row.id, row);
  const merged = [...byId.values()].sort((a, b) => a.id - b.id);
  return { rows: merged.slice(0, pageSize), more: merged.length > pageSize };
}

export async function listCertificates(ctx: SignedInContext): Promise<void> {
  const now = new Date();
  const query = readListQuery(ctx.req.query as Record<string, unknown>);
  const viewable = await casWith(ctx, 'view_certificate');
  const cas = listedCas(viewable, query);
  const { rows, more } = await listPage(ctx, cas, query, now);
  const caName = new Map(viewable.map((ca) => [ca.id, ca]));
  const filters = listFilters(query);
  const link = (extra: Record<string, string>) => `${ctx.base}certs/?${new URLSearchParams({ ...filters, ...extra })}`;
  const table = rows.length
    ? dataTable(
        'Certificates',
        ['Name', 'Serial', 'Status', 'CA', 'Profile', 'Not after'],
        rows.map((cert) => {
          const ca = caName.get(cert.caId) as CaRecord;
          const status = statusOf(cert, now);
          return html`<td><a href="${ctx.base}certs/${ca.serial}/${cert.serial}/">${primaryName(cert)}</a></td>
            <td class="mono">${colonSerial(cert.serial)}</td>
            <td><span class="badge ${status.kind}">${status.text}</span></td>
            <td>${ca.name}</td>
            <td>${cert.profile}</td>
            <td>${isoDay(cert.notAfter)}</td>`;
        }),
      )
    : html`<p class="message">No certificate matches.</p>`;
  sendPage(ctx, {
    title: 'Certificates',
    body: html`<h1>Certificates</h1>
      <form class="filters" method="get" action="${ctx.base}certs/" role="search">
        <div><label for="q">Search</label><input id="q" name="q" type="search" value="${query.q}" placeholder="name, SAN or serial" /></div>
        <div>
          <label for="ca">CA</label
          ><select id="ca" name="ca">
            <option value="">All CAs</option>
            ${viewable.map((ca) => html`<option value="${ca.serial}" ${ca.serial === query.ca ? html` selected` : null}>${ca.name}</option>`)}
          </select>
        </div>
        <div>
          <label for="status">Status</label
          ><select id="status" name="status">
            ${LIST_STATUSES.map((s) => html`<option value="${s}" ${s === query.status ? html` selected` : null}>${STATUS_LABELS[s]}</option>`)}
          </select>
        </div>
        <div>
          <label for="days">Days</label><input id="days" name="days" type="number" min="1" max="${MAX_DAYS}" value="${query.days || ''}" />
        </div>
        <button type="submit">Search</button>
      </form>
      ${rows.length ? html`<p class="actions"><a href="${ctx.base}certs/export.csv?${new URLSearchParams(filters)}" download>Export CSV</a></p>` : null}
      ${table}
      ${more ? html`<p class="pager"><a href="${link({ after: String(rows[rows.length - 1].id) })}" rel="next">Next page</a></p>` : null}`,
  });
}
