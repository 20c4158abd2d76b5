/**
 * A new ACME external account binding key for a CA (RFC 8555 §7.3.4; docs/guides/acme.md), made as `ca-admin
 * create_acme_eab_key` makes it (lib/acme/eab/create-key.ts): the MAC key is sealed in the store and
 * shown once, on the answer to this POST (never stored in the session, never shown again; the page
 * is `no-store` as every admin page). Needs `change_certificateauthority` for the CA; audited as
 * `acme.eab_key.created` (its kid only) naming the signed-in user.
 */
import { createAcmeEabKey } from '../../acme/eab/create-key';
import { actingAs, hasAcmeStore, type AcmeStore, type Store } from '../../ports';
import { adminActor, caFor, notFoundPage } from '../access';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { sendMessagePage, sendPage } from '../page';

function acmeOf(store: Store): AcmeStore {
  if (!hasAcmeStore(store)) throw notFoundPage('ACME (this store keeps no ACME data)');
  return store.acme;
}

export async function createEabKey(ctx: SignedInContext): Promise<void> {
  const ca = await caFor(ctx, 'change_certificateauthority', ctx.params.ca);
  const { store } = ctx.services;
  if (!hasAcmeStore(store)) throw notFoundPage('ACME (this store keeps no ACME data)');
  const box = ctx.services.eabSecrets;
  if (!box) {
    return sendMessagePage(
      ctx,
      503,
      'Unavailable',
      'Making external account binding keys needs CA_KEY_ENCRYPTION_KEY (or the eabSecrets option): their MAC keys are kept sealed under it.',
    );
  }
  // In a transaction that names the user, so that `acme.eab_key.created` does too.
  const { kid, hmac } = await actingAs(store, adminActor(ctx)).transaction((tx) => createAcmeEabKey(acmeOf(tx), box, ca));
  sendPage(ctx, {
    title: 'New external account binding key',
    body: html`<h1>New external account binding key for ${ca.name}</h1>
      <p class="message ok" role="status">Copy the MAC key now: it is shown this once and cannot be shown again.</p>
      <dl class="fields">
        <dt>Key id (kid)</dt>
        <dd class="mono" id="eab-kid">${kid}</dd>
        <dt>MAC key</dt>
        <dd class="mono" id="eab-hmac">${hmac}</dd>
      </dl>
      <p>It binds one ACME account of this CA. For example:</p>
      <pre>
certbot register --eab-kid ${kid} --eab-hmac-key ${hmac} --server …/directory
lego --eab --kid ${kid} --hmac ${hmac} --server …/directory …</pre>
      <p><a href="${ctx.base}cas/${ca.serial}/">Back to the CA</a></p>`,
  });
}
