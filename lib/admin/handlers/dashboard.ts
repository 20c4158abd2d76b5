/**
 * The dashboard (docs/guides/admin-interface.md): over the CAs whose certificates the user may view, the
 * counts by status (each a link to the certificate list so filtered) and a chart of when the valid
 * ones expire (or, when none does in its weeks, a sentence saying how many do later), both from the store's `CertificateStatistics` at one instant; the same counts per CA
 * with each CA's pending and failed sign orders; the newest audit records and the signatures of the
 * last 24 hours not issued (handlers/intents.ts) for a user with `view_auditlog`; then those CAs, with their validity and state, each a link to its certificates,
 * and one box to find a certificate by name, subjectAltName or serial.
 */
import { isUsable } from '../../ca/lookup';
import { DAY_MS } from '../../x509/datetime';
import { EXPIRED_RECENTLY_DAYS, type CaRecord } from '../../ports';
import { casWith, holdsGlobal } from '../access';
import { caNames } from '../ca-names';
import { colonSerial, EXPIRING_WITHIN_DAYS, isoDay, timeText } from '../certificate-view';
import type { SignedInContext } from '../context';
import { expiryChart, expiryPeriods, type ExpiryPeriod } from '../expiry-chart';
import { html, type Html } from '../html';
import { sendPage } from '../page';
import { dataTable } from '../table';
import { actorText } from './audit';
import type { ListStatus } from './certificates';

const EXPIRING_SOON_DAYS = 7;
const WEEK_DAYS = 7;
const CHART_WEEKS = 13; // 91 days: the next 90 days and then some
const RECENT_EVENTS = 10;

const caState = (ca: CaRecord, now: Date): string =>
  isUsable(ca, now) ? 'usable' : ca.revoked ? 'revoked' : ca.enabled ? 'not valid now' : 'disabled';

/**
 * The chart, or — when no valid certificate ends in its weeks, as on a fresh install whose
 * certificates last the default 100 days — a sentence saying so, with how many end later.
 */
function expiryChartOrWhyNot(ctx: SignedInContext, periods: ExpiryPeriod[], valid: number): Html {
  if (periods.some((p) => p.count > 0)) return expiryChart(periods, 'week');
  const later = valid; // none of them in the chart's weeks
  const list = html`<a href="${ctx.base}certs/?status=valid">the certificate list</a>`;
  return html`<p class="message" role="status">
    No valid certificate expires in the next ${CHART_WEEKS} weeks.
    ${
      later === 0
        ? html`There is no valid certificate yet: ${list} shows the others.`
        : html`${later} valid certificate${later === 1 ? ' expires' : 's expire'} later: see ${list}.`
    }
  </p>`;
}

/** The cards and the chart over `cas`, or why there are none. */
async function figures(ctx: SignedInContext, cas: CaRecord[], now: Date): Promise<Html | null> {
  const { store } = ctx.services;
  if (cas.length === 0) return null;
  const caIds = cas.map((ca) => ca.id);
  const [counts, weekly, perCa, orders] = await Promise.all([
    store.certificateStatistics.certificateCounts(caIds, now, [EXPIRING_SOON_DAYS, EXPIRING_WITHIN_DAYS]),
    store.certificateStatistics.expiryHistogram(caIds, now, WEEK_DAYS, CHART_WEEKS),
    store.certificateStatistics.certificateCountsPerCa(caIds, now, EXPIRING_WITHIN_DAYS),
    store.certificateStatistics.orderCountsPerCa(caIds),
  ]);
  const card = (count: number, text: string, status: ListStatus, days?: number) =>
    html`<li class="card ${status}">
      <a href="${ctx.base}certs/?${new URLSearchParams({ status, ...(days ? { days: String(days) } : {}) })}"
        ><span class="figure">${count}</span> ${text}</a
      >
    </li>`;
  return html`<h2>Certificates</h2>
    <ul class="cards" aria-label="Certificates by status">
      ${card(counts.valid, 'valid', 'valid')}
      ${card(counts.expiring[EXPIRING_SOON_DAYS], `expiring within ${EXPIRING_SOON_DAYS} days`, 'expiring', EXPIRING_SOON_DAYS)}
      ${card(counts.expiring[EXPIRING_WITHIN_DAYS], `expiring within ${EXPIRING_WITHIN_DAYS} days`, 'expiring', EXPIRING_WITHIN_DAYS)}
      ${card(counts.expiredRecently, `expired in the last ${EXPIRED_RECENTLY_DAYS} days`, 'expired', EXPIRED_RECENTLY_DAYS)}
      ${card(counts.revoked, 'revoked', 'revoked')}
    </ul>
    <h2>Certificates by CA</h2>
    ${dataTable(
      'Certificates and sign orders by CA',
      ['CA', 'Valid', `Expiring within ${EXPIRING_WITHIN_DAYS} days`, 'Expired', 'Revoked', 'Pending orders', 'Failed orders'],
      cas.map((ca) => {
        const c = perCa.get(ca.id) ?? { valid: 0, expiring: 0, expired: 0, revoked: 0 };
        const o = orders.get(ca.id) ?? { pending: 0, failed: 0 };
        const cell = (count: number, status: ListStatus) =>
          html`<td><a href="${ctx.base}certs/?${new URLSearchParams({ ca: ca.serial, status })}">${count}</a></td>`;
        return html`<th scope="row">${ca.name}</th>
          ${cell(c.valid, 'valid')} ${cell(c.expiring, 'expiring')} ${cell(c.expired, 'expired')} ${cell(c.revoked, 'revoked')}
          <td>${o.pending}</td>
          <td>${o.failed}</td>`;
      }),
    )}
    <h2>Expiring in the next ${CHART_WEEKS} weeks</h2>
    ${expiryChartOrWhyNot(ctx, expiryPeriods(now, WEEK_DAYS, weekly), counts.valid)}`;
}

/** The newest audit records, each a link to the audit log (newest first) at that record, CAs by name: only for a user with `view_auditlog`. */
async function recentEvents(ctx: SignedInContext): Promise<Html | null> {
  const { store } = ctx.services;
  if (!(await holdsGlobal(ctx, 'view_auditlog'))) return null;
  const [rows, names] = await Promise.all([store.auditLog.auditRows({ newestFirst: true, limit: RECENT_EVENTS }), caNames(ctx)]);
  return html`<h2>Recent events</h2>
    ${
      rows.length
        ? dataTable(
            'Recent events, newest first',
            ['Id', 'Time', 'Type', 'Actor', 'CA'],
            rows.map(
              (r) =>
                html`<td><a href="${ctx.base}audit/?${new URLSearchParams({ before: String(r.id + 1) })}">${r.id}</a></td>
                  <td>${timeText(r.created)}</td>
                  <td>${r.type}</td>
                  <td class="long">${actorText(r)}</td>
                  <td>${names.link(r.caSerial)}</td>`,
            ),
          )
        : html`<p class="message">The audit log is empty.</p>`
    }
    <p><a href="${ctx.base}audit/">The whole audit log</a></p>`;
}

/** Counted up to this many: beyond, "100 or more" (a count that reads no more rows than a page). */
const UNISSUED_COUNTED = 100;

/**
 * The signatures of the last 24 hours that were not issued (failed, or still pending), each count a link
 * to the Signatures page so filtered: only for a user with `view_auditlog`, as that page.
 */
async function unissuedSignatures(ctx: SignedInContext, now: Date): Promise<Html | null> {
  if (!(await holdsGlobal(ctx, 'view_auditlog'))) return null;
  const since = new Date(now.getTime() - DAY_MS);
  const count = async (state: 'failed' | 'pending'): Promise<Html> => {
    const n = (await ctx.services.store.listIntents({ state, since, limit: UNISSUED_COUNTED })).length;
    return html`<a href="${ctx.base}signatures/?state=${state}">${n >= UNISSUED_COUNTED ? `${n} or more` : String(n)} ${state}</a>`;
  };
  const [failed, pending] = await Promise.all([count('failed'), count('pending')]);
  return html`<h2>Signatures not issued</h2>
    <p>In the last 24 hours: ${failed}, ${pending} (a failed one issued nothing; the reason is kept).</p>`;
}

export async function showDashboard(ctx: SignedInContext): Promise<void> {
  const now = new Date();
  const cas = await casWith(ctx, 'view_certificate');
  sendPage(ctx, {
    title: 'Dashboard',
    body: html`<h1>Dashboard</h1>
      <form class="filters" method="get" action="${ctx.base}certs/" role="search">
        <div><label for="q">Find a certificate</label><input id="q" name="q" type="search" placeholder="name, SAN or serial" /></div>
        <input type="hidden" name="status" value="all" />
        <button type="submit">Find</button>
      </form>
      ${await figures(ctx, cas, now)} ${await recentEvents(ctx)} ${await unissuedSignatures(ctx, now)}
      <h2>Certificate authorities</h2>
      ${
        cas.length
          ? dataTable(
              'Certificate authorities',
              ['Name', 'Serial', 'State', 'Valid until', 'Certificates'],
              cas.map(
                (ca) =>
                  html`<td><a href="${ctx.base}cas/${ca.serial}/">${ca.name}</a></td>
                    <td class="mono">${colonSerial(ca.serial)}</td>
                    <td>${caState(ca, now)}</td>
                    <td>${isoDay(ca.notAfter)}</td>
                    <td><a href="${ctx.base}certs/?ca=${ca.serial}">List</a></td>`,
              ),
            )
          : html`<p class="message">You may not view the certificates of any CA.</p>`
      }`,
  });
}
