/**
 * A CA's ACME accounts (docs/guides/admin-interface.md): who registered, their contacts and state, an
 * account's orders (newest first, paged: status, names, expiry, the certificate once issued), and —
 * for a user with `change_certificateauthority` on the CA — deactivation (RFC 8555 §7.3.6: the
 * account's pending orders and authorizations become invalid; it can register no more). The
 * `acme.account.deactivated` event names the signed-in user over protocol `admin`.
 */
import { onAccountDeactivated } from '../../acme/state-machine';
import { actingAs, hasAcmeStore, type AcmeStoreProvider, type CaRecord, type Store } from '../../ports';
import { adminActor, caFor, may, notFoundPage } from '../access';
import { colonSerial, isoTime } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { redirect, sendPage } from '../page';
import { dataTable } from '../table';

function acmeOf(store: Store): AcmeStoreProvider['acme'] {
  if (!hasAcmeStore(store)) throw notFoundPage('ACME (this store keeps no ACME accounts)');
  return store.acme;
}

async function accountsPage(ctx: SignedInContext, ca: CaRecord, status = 200, message: string | null = null): Promise<void> {
  const accounts = await acmeOf(ctx.services.store).listAccounts(ca.id);
  const canChange = await may(ctx, 'change_certificateauthority', ca.serial);
  const base = `${ctx.base}cas/${ca.serial}/acme/`;
  sendPage(ctx, {
    status,
    title: `ACME accounts of ${ca.name}`,
    body: html`<h1>ACME accounts of ${ca.name}</h1>
      ${message ? html`<p class="message" role="status">${message}</p>` : null}
      <p>ACME is ${ca.acmeEnabled ? 'enabled' : 'disabled'} for this CA. <a href="${ctx.base}cas/${ca.serial}/">Back to the CA</a></p>
      ${
        accounts.length
          ? dataTable(
              'ACME accounts',
              ['Account', 'Status', 'Contacts', 'Registered', 'External binding', 'Action'],
              accounts.map(
                (a) =>
                  html`<td class="mono"><a href="${base}${a.slug}/">${a.slug}</a></td>
                    <td>${a.status}</td>
                    <td>${a.contact.join(', ') || '(none)'}</td>
                    <td>${isoTime(a.created)}</td>
                    <td>${a.eabKid ?? '(none)'}</td>
                    <td>
                      ${
                        canChange && a.status === 'valid'
                          ? html`<form method="post" action="${base}${a.slug}/deactivate">
                              <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" /><button
                                class="danger"
                                type="submit"
                                aria-label="Deactivate ${a.slug}"
                              >
                                Deactivate
                              </button>
                            </form>`
                          : null
                      }
                    </td>`,
              ),
            )
          : html`<p class="message">No ACME account has registered with this CA.</p>`
      }`,
  });
}

export async function showAcmeAccounts(ctx: SignedInContext): Promise<void> {
  await accountsPage(ctx, await caFor(ctx, 'view_certificateauthority', ctx.params.ca));
}

const ORDERS_PAGE_SIZE = 50;

/** One account and its orders, a page at a time (`before`: the id the next page starts below). */
export async function showAcmeAccount(ctx: SignedInContext): Promise<void> {
  const ca = await caFor(ctx, 'view_certificateauthority', ctx.params.ca);
  const acme = acmeOf(ctx.services.store);
  const account = await acme.findAccount(ca.id, ctx.params.slug);
  if (!account) throw notFoundPage('The ACME account');
  const before = Number(ctx.req.query.before);
  const page = await acme.listOrders(account.id, {
    beforeId: Number.isSafeInteger(before) && before > 0 ? before : undefined,
    limit: ORDERS_PAGE_SIZE,
  });
  const orders = (await Promise.all(page.slugs.map((slug) => acme.findOrder(ca.id, slug)))).filter((o) => o !== null);
  const base = `${ctx.base}cas/${ca.serial}/acme/`;
  sendPage(ctx, {
    title: `ACME account ${account.slug}`,
    body: html`<h1>ACME account ${account.slug}</h1>
      <p><a href="${base}">All ACME accounts of ${ca.name}</a></p>
      <dl class="fields">
        <dt>Status</dt>
        <dd>${account.status}</dd>
        <dt>Contacts</dt>
        <dd>${account.contact.join(', ') || '(none)'}</dd>
        <dt>Registered</dt>
        <dd>${isoTime(account.created)}</dd>
        <dt>External binding</dt>
        <dd>${account.eabKid ?? '(none)'}</dd>
      </dl>
      <h2>Orders</h2>
      ${
        orders.length
          ? dataTable(
              'ACME orders, newest first',
              ['Order', 'Status', 'Names', 'Expires', 'Certificate'],
              orders.map(
                (o) =>
                  html`<td class="mono">${o.slug}</td>
                    <td>${o.status}</td>
                    <td>${o.identifiers.map((i) => i.value).join(', ')}</td>
                    <td>${isoTime(o.expires)}</td>
                    <td class="mono">
                      ${
                        o.certificateSerial
                          ? html`<a href="${ctx.base}certs/${ca.serial}/${o.certificateSerial}/">${colonSerial(o.certificateSerial)}</a>`
                          : '(none)'
                      }
                    </td>`,
              ),
            )
          : html`<p class="message">This account has placed no order.</p>`
      }
      ${
        page.nextBeforeId !== null
          ? html`<p class="pager"><a href="${base}${account.slug}/?before=${page.nextBeforeId}" rel="next">Older orders</a></p>`
          : null
      }`,
  });
}

export async function deactivateAcmeAccount(ctx: SignedInContext): Promise<void> {
  const ca = await caFor(ctx, 'change_certificateauthority', ctx.params.ca);
  const account = await acmeOf(ctx.services.store).findAccount(ca.id, ctx.params.slug);
  if (!account) throw notFoundPage('The ACME account');
  if (account.status !== 'valid') return accountsPage(ctx, ca, 409, `The account ${account.slug} is ${account.status} already.`);
  const actor = adminActor(ctx);
  // In a transaction of a store that names the user, so that the event does too.
  const { account: moved, cascade } = onAccountDeactivated();
  await actingAs(ctx.services.store, actor).transaction((tx) => acmeOf(tx).updateAccount(account.id, { status: moved }, cascade));
  redirect(ctx.res, `${ctx.base}cas/${ca.serial}/acme/`);
}
