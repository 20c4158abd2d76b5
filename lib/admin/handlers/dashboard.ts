/**
 * The dashboard (README "Admin interface"): over the CAs whose certificates the user may view, the
 * counts by status (each a link to the certificate list so filtered) and a chart of when the valid
 * ones expire, both from the store's `CertificateStatistics` at one instant; then those CAs, with
 * their validity and state, each a link to its certificates, and one box to find a certificate by
 * name, subjectAltName or serial.
 */
import { isUsable } from '../../ca/lookup';
import { EXPIRED_RECENTLY_DAYS, hasCertificateStatistics, type CaRecord } from '../../ports';
import { casWith } from '../access';
import { colonSerial, EXPIRING_WITHIN_DAYS, isoDay } from '../certificate-view';
import type { SignedInContext } from '../context';
import { expiryChart, expiryPeriods } from '../expiry-chart';
import { html, type Html } from '../html';
import { sendPage } from '../page';
import { dataTable } from '../table';
import type { ListStatus } from './certificates';

const EXPIRING_SOON_DAYS = 7;
const WEEK_DAYS = 7;
const CHART_WEEKS = 12;

const caState = (ca: CaRecord, now: Date): string =>
  isUsable(ca, now) ? 'usable' : ca.revoked ? 'revoked' : ca.enabled ? 'not valid now' : 'disabled';

/** The cards and the chart over `cas`, or why there are none. */
async function figures(ctx: SignedInContext, cas: CaRecord[], now: Date): Promise<Html | null> {
  const { store } = ctx.services;
  if (cas.length === 0) return null;
  if (!hasCertificateStatistics(store)) {
    return html`<p class="message">
      This store does not count certificates, so the dashboard shows no figures; the certificate list has them all.
    </p>`;
  }
  const caIds = cas.map((ca) => ca.id);
  const [counts, weekly] = await Promise.all([
    store.certificateStatistics.certificateCounts(caIds, now, [EXPIRING_SOON_DAYS, EXPIRING_WITHIN_DAYS]),
    store.certificateStatistics.expiryHistogram(caIds, now, WEEK_DAYS, CHART_WEEKS),
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
    <h2>Expiring in the next ${CHART_WEEKS} weeks</h2>
    ${expiryChart(expiryPeriods(now, WEEK_DAYS, weekly), 'week')}`;
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
      ${await figures(ctx, cas, now)}
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
