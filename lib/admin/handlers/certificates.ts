/**
 * The certificate list (README "Admin interface"): every certificate of the CAs the user may view,
 * or of one CA, searched by one box — a serial with or without colons, or a fragment of the common
 * name or of any subjectAltName — valid ones by default or all of them, with keyset paging by id
 * across CAs (`after`): each CA is asked for one page after the cursor, never for all its rows, and
 * the pages are merged in id order.
 */
import type { CaRecord, CertificateFilter, CertificateRecord } from '../../ports';
import { normaliseSerial } from '../../x509/serial-format';
import { casWith } from '../access';
import { colonSerial, isoDay, primaryName, statusOf } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { sendPage } from '../page';
import { dataTable } from '../table';

const PAGE_SIZE = 50;

export interface ListQuery {
  q: string;
  ca: string;
  status: 'valid' | 'all';
  after: number;
}

export function readListQuery(query: Record<string, unknown>): ListQuery {
  const text = (name: string): string => (typeof query[name] === 'string' ? (query[name] as string).trim().slice(0, 200) : '');
  const after = Number(text('after'));
  return {
    q: text('q'),
    ca: text('ca'),
    status: text('status') === 'all' ? 'all' : 'valid',
    after: Number.isSafeInteger(after) && after > 0 ? after : 0,
  };
}

/** The filters one search box stands for: a serial prefix (when it looks like one), a CN fragment, a SAN fragment. */
function searches(q: string): Partial<CertificateFilter>[] {
  if (!q) return [{}];
  const out: Partial<CertificateFilter>[] = [{ subject: q }, { san: q }];
  const serial = /^[0-9A-Fa-f:]+$/.test(q) && q.replace(/:/g, '').length >= 2 ? normaliseSerial(q) : null;
  if (serial) out.push({ serialPrefix: serial });
  return out;
}

/** One page after `after`, by id, over `cas`; and whether more follow. */
export async function listPage(
  ctx: SignedInContext,
  cas: CaRecord[],
  query: ListQuery,
  now: Date,
): Promise<{ rows: CertificateRecord[]; more: boolean }> {
  const base = {
    includeExpired: query.status === 'all',
    includeRevoked: query.status === 'all',
    now,
    afterId: query.after || undefined,
    limit: PAGE_SIZE + 1,
  };
  const pages = await Promise.all(
    cas.flatMap((ca) => searches(query.q).map((search) => ctx.services.store.listCertificates({ ...base, ...search, caId: ca.id }))),
  );
  const byId = new Map<number, CertificateRecord>();
  for (const page of pages) for (const row of page) byId.set(row.id, row);
  const merged = [...byId.values()].sort((a, b) => a.id - b.id);
  return { rows: merged.slice(0, PAGE_SIZE), more: merged.length > PAGE_SIZE };
}

export async function listCertificates(ctx: SignedInContext): Promise<void> {
  const now = new Date();
  const query = readListQuery(ctx.req.query as Record<string, unknown>);
  const viewable = await casWith(ctx, 'view_certificate');
  const cas = query.ca ? viewable.filter((ca) => ca.serial === query.ca) : viewable;
  const { rows, more } = await listPage(ctx, cas, query, now);
  const caName = new Map(viewable.map((ca) => [ca.id, ca]));
  const link = (extra: Record<string, string>) =>
    `${ctx.base}certs/?${new URLSearchParams({ q: query.q, ca: query.ca, status: query.status, ...extra })}`;
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
            <option value="valid">Valid</option>
            <option value="all" ${query.status === 'all' ? html` selected` : null}>All (expired and revoked too)</option>
          </select>
        </div>
        <button type="submit">Search</button>
      </form>
      ${table}
      ${more ? html`<p class="pager"><a href="${link({ after: String(rows[rows.length - 1].id) })}" rel="next">Next page</a></p>` : null}`,
  });
}
