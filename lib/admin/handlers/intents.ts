/**
 * The Signatures page (docs/guides/admin-interface.md; docs/guides/issuance-policy.md "Issuing authority"):
 * every certificate signature the CA made, recorded as an issuance intent before its key signed —
 * newest first, a page at a time (keyset by id: `before`, the oldest id shown), filtered by CA (a
 * choice, by name), state and door. A signature never issued (failed: the reason kept) or still
 * pending is on record; this is where an operator sees it. It names every CA and requester, as the
 * audit log does, so it needs the same global `view_auditlog` permission.
 */
import { INTENT_STATES, KNOWN_ISSUANCE_DOORS, intentState, type IntentState, type IssuanceIntentRecord } from '../../ports';
import { normaliseSerial } from '../../x509/serial-format';
import { requireGlobal } from '../access';
import { actorWords } from '../../audit/actor-text';
import { caNames, type CaNames } from '../ca-names';
import { colonSerial, isoTime } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html, type Html } from '../html';
import { sendPage } from '../page';
import type { QuerySpec } from '../query-check';
import { dataTable } from '../table';

const PAGE_SIZE = 100;

/** The page's query, checked before its handler reads it (query-check.ts): a bad one is a 400 page naming it. */
export const INTENTS_QUERY: QuerySpec = { ca: 'serial', state: INTENT_STATES, door: 'door', before: 'eventId' };

const STATE_LABELS: Record<IntentState, string> = { pending: 'Pending', issued: 'Issued', failed: 'Failed' };

/** The filters as the query gives them (valid already: INTENTS_QUERY). */
function readFilters(query: Record<string, unknown>): { ca: string; state: IntentState | ''; door: string; before: number } {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim() : '');
  const state = INTENT_STATES.find((s) => s === text('state')) ?? '';
  const before = Number(text('before'));
  return { ca: text('ca'), state, door: text('door'), before: Number.isSafeInteger(before) && before > 0 ? before : 0 };
}

const option = (value: string, label: string, chosen: boolean): Html =>
  html`<option value="${value}" ${chosen ? html` selected` : null}>${label}</option>`;

/** Issued: a link to the certificate; failed: why (nothing was issued); pending. */
function stateCell(intent: IssuanceIntentRecord, caSerial: string | null, base: string): Html {
  const state = intentState(intent);
  if (state === 'issued' && caSerial) return html`<a href="${base}certs/${caSerial}/${intent.serial}/">Issued</a>`;
  if (state === 'failed') return html`Failed: ${intent.failure ?? ''}`;
  return html`${STATE_LABELS[state]}`;
}

export async function showIntents(ctx: SignedInContext): Promise<void> {
  await requireGlobal(ctx, 'view_auditlog');
  const f = readFilters(ctx.req.query as Record<string, unknown>);
  const caSerial = normaliseSerial(f.ca) ?? undefined;
  const names = await caNames(ctx);
  const ca = caSerial === undefined ? undefined : names.cas.find((c) => c.serial === caSerial);
  // A CA no longer known (or never): nothing of it to list, and it stays chosen in the filter.
  const rows =
    caSerial !== undefined && !ca
      ? []
      : await ctx.services.store.listIntents({
          caId: ca?.id,
          state: f.state || undefined,
          door: f.door || undefined,
          beforeId: f.before || undefined,
          limit: PAGE_SIZE + 1,
        });
  const shown = rows.slice(0, PAGE_SIZE);
  const serialOf = new Map(names.cas.map((c) => [c.id, c.serial]));
  const filters = { ca: f.ca, state: f.state, door: f.door };
  const next =
    rows.length > PAGE_SIZE
      ? `${ctx.base}signatures/?${new URLSearchParams({ ...filters, before: String(shown[shown.length - 1].id) })}`
      : null;
  const doors = KNOWN_ISSUANCE_DOORS.includes(f.door) || !f.door ? KNOWN_ISSUANCE_DOORS : [...KNOWN_ISSUANCE_DOORS, f.door];
  sendPage(ctx, {
    title: 'Signatures',
    body: html`<h1>Signatures</h1>
      <p>
        Every certificate the CAs signed, each recorded (an issuance intent) before the key made the signature: issued; failed — signed or
        not, nothing was issued, and the reason is kept; or pending — being signed now, or left by a process that stopped.
      </p>
      <form class="filters" method="get" action="${ctx.base}signatures/">
        <div>
          <label for="ca">Certificate authority</label
          ><select id="ca" name="ca">
            <option value="">All CAs</option>
            ${names.cas.map((c) => option(c.serial, c.name, c.serial === caSerial))}
            ${caSerial === undefined || ca ? null : option(caSerial, colonSerial(caSerial), true)}
          </select>
        </div>
        <div>
          <label for="state">State</label
          ><select id="state" name="state">
            <option value="">All states</option>
            ${INTENT_STATES.map((s) => option(s, STATE_LABELS[s], s === f.state))}
          </select>
        </div>
        <div>
          <label for="door">Way in</label
          ><select id="door" name="door">
            <option value="">All</option>
            ${doors.map((d) => option(d, d, d === f.door))}
          </select>
        </div>
        <button type="submit">Filter</button>
      </form>
      ${shown.length ? intentsTable(shown, serialOf, names, ctx.base) : html`<p class="message">No signature matches.</p>`}
      ${next ? html`<p class="pager"><a href="${next}" rel="next">Older signatures</a></p>` : null}`,
  });
}

function intentsTable(shown: IssuanceIntentRecord[], serialOf: Map<number, string>, names: CaNames, base: string): Html {
  return dataTable(
    'Signatures, newest first',
    ['Time', 'CA', 'Serial', 'Way in', 'Requester', 'State'],
    shown.map((intent) => {
      const caSerial = serialOf.get(intent.caId) ?? null;
      return html`<td>${isoTime(intent.created)}</td>
        <td>${caSerial ? names.link(caSerial) : `CA #${intent.caId}`}</td>
        <td class="mono">${colonSerial(intent.serial)}</td>
        <td>${intent.door}</td>
        <td class="long">${intent.requester ? actorWords(intent.requester) : ''}</td>
        <td${intent.failed ? html` class="long"` : null}>${stateCell(intent, caSerial, base)}</td>`;
    }),
  );
}
