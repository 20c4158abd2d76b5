/**
 * The audit log (docs/operations/audit-and-events.md "Audit", docs/guides/admin-interface.md): its records newest first, filtered by CA (a
 * choice of the CAs, by name), time, event type (one of the known types) and actor (a name, exactly:
 * an API user's username — offered as suggestions —, an operator, a database role), a page at a time
 * (keyset by id: `before`, the oldest id shown; `after` bounds from below), each record's CA by name
 * and its certificate's serial with colons, both links; and a button that verifies the whole hash
 * chain now. It names every CA and user, so it needs the global `view_auditlog` permission.
 */
import { verifyAuditChain } from '../../audit/audit-chain';
import { DOMAIN_EVENT_TYPES, type AuditLog, type AuditRow, type Store } from '../../ports';
import { normaliseSerial } from '../../x509/serial-format';
import { listApiUsers } from '../../accounts/users';
import { requireGlobal } from '../access';
import { actorWords } from '../../audit/actor-text';
import { caNames } from '../ca-names';
import { colonSerial, timeText } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html, type Html } from '../html';
import { sendPage } from '../page';
import { isoDate } from '../query-check';
import { dataTable } from '../table';

const PAGE_SIZE = 100;

async function auditLogFor(ctx: SignedInContext): Promise<AuditLog> {
  await requireGlobal(ctx, 'view_auditlog');
  const store: Store = ctx.services.store;
  return store.auditLog;
}

/** The actor of a record in words (`api_user alice over admin from 127.0.0.1`); the dashboard shows it too. */
export function actorText(row: AuditRow): string {
  try {
    return actorWords(JSON.parse(row.actorText) as Record<string, unknown>);
  } catch {
    return row.actorText;
  }
}

/** The page's filters as the query gives them (checked before, routes.ts): unknown event types are ignored (the select offers the known ones). */
function readFilters(query: Record<string, unknown>): {
  ca: string;
  since: string;
  type: string;
  actor: string;
  after: number;
  before: number;
} {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim().slice(0, 200) : '');
  const id = (name: string) => {
    const n = Number(text(name));
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  };
  const type = DOMAIN_EVENT_TYPES.find((t) => t === text('type')) ?? '';
  return { ca: text('ca'), since: text('since'), type, actor: text('actor'), after: id('after'), before: id('before') };
}

const option = (value: string, label: string, chosen: boolean): Html =>
  html`<option value="${value}" ${chosen ? html` selected` : null}>${label}</option>`;

async function auditPage(ctx: SignedInContext, log: AuditLog, verdict: Html | null): Promise<void> {
  const f = readFilters(ctx.req.query as Record<string, unknown>);
  const ca = normaliseSerial(f.ca) ?? undefined; // checked before (routes.ts): a bad one was a 400
  const since = (f.since && isoDate(f.since)) || undefined;
  // Newest first, a page at a time: the next page is the records before the last one shown.
  const [rows, names, users] = await Promise.all([
    log.auditRows({
      newestFirst: true,
      afterId: f.after,
      beforeId: f.before,
      caSerial: ca,
      since,
      type: f.type || undefined,
      actorName: f.actor || undefined,
      limit: PAGE_SIZE + 1,
    }),
    caNames(ctx),
    listApiUsers(ctx.services.store),
  ]);
  const shown = rows.slice(0, PAGE_SIZE);
  const filters = { ca: f.ca, since: f.since, type: f.type, actor: f.actor, ...(f.after ? { after: String(f.after) } : {}) };
  const next =
    rows.length > PAGE_SIZE ? `${ctx.base}audit/?${new URLSearchParams({ ...filters, before: String(shown[shown.length - 1].id) })}` : null;
  const knownCa = ca === undefined || names.cas.some((c) => c.serial === ca);
  sendPage(ctx, {
    title: 'Audit log',
    body: html`<h1>Audit log</h1>
      ${verdict}
      <form method="post" action="${ctx.base}audit/verify">
        <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" /><button type="submit">Verify the chain</button>
      </form>
      <form class="filters" method="get" action="${ctx.base}audit/">
        <div>
          <label for="ca">Certificate authority</label
          ><select id="ca" name="ca">
            <option value="">All CAs</option>
            ${names.cas.map((c) => option(c.serial, c.name, c.serial === ca))}
            ${knownCa ? null : option(ca ?? '', colonSerial(ca ?? ''), true)}
          </select>
        </div>
        <div><label for="since">Since (ISO 8601)</label><input id="since" name="since" value="${f.since}" /></div>
        <div>
          <label for="type">Event type</label
          ><select id="type" name="type">
            <option value="">All types</option>
            ${DOMAIN_EVENT_TYPES.map((t) => option(t, t, t === f.type))}
          </select>
        </div>
        <div>
          <label for="actor">Actor (name, exactly)</label><input id="actor" name="actor" list="actors" value="${f.actor}" />
          <datalist id="actors">${users.map((u) => html`<option value="${u.username}"></option>`)}</datalist>
        </div>
        <button type="submit">Filter</button>
      </form>
      ${
        shown.length
          ? dataTable(
              'Audit records, newest first',
              ['Id', 'Time', 'Type', 'Actor', 'CA', 'Certificate', 'Data', 'Hash'],
              shown.map(
                (r) =>
                  html`<td>${r.id}</td>
                    <td>${timeText(r.created)}</td>
                    <td>${r.type}</td>
                    <td class="long">${actorText(r)}</td>
                    <td>${names.link(r.caSerial)}</td>
                    <td class="mono">${names.certificate(r.caSerial, r.serial)}</td>
                    <td class="mono">${r.dataText.length > 200 ? `${r.dataText.slice(0, 200)}…` : r.dataText}</td>
                    <td class="mono">${r.hash.slice(0, 12)}</td>`,
              ),
            )
          : html`<p class="message">No record matches.</p>`
      }
      ${next ? html`<p class="pager"><a href="${next}" rel="next">Older records</a></p>` : null}`,
  });
}

export async function showAuditLog(ctx: SignedInContext): Promise<void> {
  await auditPage(ctx, await auditLogFor(ctx), null);
}

/** Walk every record now (lib/audit/audit-chain.ts) and say whether the chain holds. */
export async function verifyAuditLog(ctx: SignedInContext): Promise<void> {
  const log = await auditLogFor(ctx);
  const v = await verifyAuditChain(log);
  const verdict = v.intact
    ? html`<p class="message ok" role="status">The chain is intact: ${v.records} records, head ${v.head}.</p>`
    : html`<p class="message error" role="alert">
        The chain is broken at record ${v.brokenAt} (after ${v.previousId ?? 'the start'}): ${v.records} records before it hold.
      </p>`;
  await auditPage(ctx, log, verdict);
}
