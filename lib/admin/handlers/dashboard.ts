/**
 * The dashboard (README "Admin interface"): the CAs whose certificates the user may view, with their
 * validity and state, each a link to its certificates, and one box to find a certificate by name,
 * subjectAltName or serial.
 */
import { isUsable } from '../../ca/lookup';
import type { CaRecord } from '../../ports';
import { casWith } from '../access';
import { colonSerial, isoDay } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { sendPage } from '../page';
import { dataTable } from '../table';

const caState = (ca: CaRecord, now: Date): string =>
  isUsable(ca, now) ? 'usable' : ca.revoked ? 'revoked' : ca.enabled ? 'not valid now' : 'disabled';

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
      <h2>Certificate authorities</h2>
      ${
        cas.length
          ? dataTable(
              'Certificate authorities',
              ['Name', 'Serial', 'State', 'Valid until'],
              cas.map(
                (ca) =>
                  html`<td><a href="${ctx.base}certs/?ca=${ca.serial}">${ca.name}</a></td>
                    <td class="mono">${colonSerial(ca.serial)}</td>
                    <td>${caState(ca, now)}</td>
                    <td>${isoDay(ca.notAfter)}</td>`,
              ),
            )
          : html`<p class="message">You may not view the certificates of any CA.</p>`
      }`,
  });
}
