/**
 * CAs named in tables of records that carry only a CA's serial (the audit log, the dashboard's recent
 * events): by name, a link to the CA's page, its serial (with colons) in the link's title; a serial
 * no CA has any more is shown as the serial. One read of the CA list per page.
 */
import type { CaRecord } from '../ports';
import { colonSerial } from './certificate-view';
import type { SignedInContext } from './context';
import { html, type Html } from './html';

export interface CaNames {
  /** Every CA, in the store's order (the audit filter's choice). */
  cas: readonly CaRecord[];
  /** The cell's content for a record's CA serial. */
  link(caSerial: string | null): Html | string;
  /** The cell's content for a record's certificate serial: with colons, a link to its page when the CA is known. */
  certificate(caSerial: string | null, serial: string | null): Html | string;
}

export async function caNames(ctx: SignedInContext): Promise<CaNames> {
  const cas = await ctx.services.store.listCas();
  const bySerial = new Map(cas.map((ca) => [ca.serial, ca]));
  return {
    cas,
    link(caSerial) {
      if (!caSerial) return '';
      const ca = bySerial.get(caSerial);
      if (!ca) return html`<span class="mono">${colonSerial(caSerial)}</span>`;
      return html`<a href="${ctx.base}cas/${ca.serial}/" title="${colonSerial(ca.serial)}">${ca.name}</a>`;
    },
    certificate(caSerial, serial) {
      if (!serial) return '';
      if (!caSerial || !bySerial.has(caSerial)) return html`<span class="mono">${colonSerial(serial)}</span>`;
      return html`<a href="${ctx.base}certs/${caSerial}/${serial}/">${colonSerial(serial)}</a>`;
    },
  };
}
