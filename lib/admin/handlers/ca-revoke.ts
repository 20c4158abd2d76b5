/**
 * Revoking a certificate authority from its page (docs/guides/admin-interface.md): a confirmation page
 * with the reason and, for the compromise reasons, when the key was compromised; then `revokeCa`
 * (the rules of `ca-admin revoke_ca` and revoke_cert, lib/ca/revocation.ts) with the signed-in user
 * as the actor of the `ca.revoked` record. Needs `change_certificateauthority` on the CA, as editing
 * it does (403 otherwise, nothing changed), and a recent step-up (routes.ts). A CA revoked already is
 * a message, not an error page.
 */
import { CaError } from '../../ca/errors';
import { revokeCa } from '../../ca/revocation';
import type { CaRecord } from '../../ports';
import { X509Error } from '../../x509/errors';
import { adminActor, caFor } from '../access';
import { colonSerial } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { redirect, sendPage } from '../page';
import { isOfferedReason, revocationFields } from '../revocation-fields';

function revokeCaForm(
  ctx: SignedInContext,
  ca: CaRecord,
  status: number,
  message: string | null,
  chosen = 'unspecified',
  compromised = '',
): void {
  const path = `${ctx.base}cas/${ca.serial}/`;
  sendPage(ctx, {
    status,
    title: `Revoke ${ca.name}`,
    body: html`<h1>Revoke ${ca.name}</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      <p>Certificate authority <span class="mono">${colonSerial(ca.serial)}</span>.</p>
      ${
        ca.revoked
          ? html`<p class="message">The certificate authority is already revoked.</p>
              <p><a href="${path}">Back to the certificate authority</a></p>`
          : html`<form method="post" action="${path}revoke">
              <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />
              ${revocationFields(chosen, compromised)}
              <p>
                This cannot be undone. The certificate authority signs nothing more; its CRLs and OCSP answers go on, and its parent's CRLs
                list it.
              </p>
              <button class="danger" type="submit">Revoke</button> <a href="${path}">Cancel</a>
            </form>`
      }`,
  });
}

export async function showRevokeCa(ctx: SignedInContext): Promise<void> {
  revokeCaForm(ctx, await caFor(ctx, 'change_certificateauthority', ctx.params.ca), 200, null);
}

export async function revokeCaAction(ctx: SignedInContext): Promise<void> {
  const ca = await caFor(ctx, 'change_certificateauthority', ctx.params.ca);
  const form = ctx.form as URLSearchParams;
  const reason = form.get('reason') ?? 'unspecified';
  const compromised = (form.get('compromised') ?? '').trim();
  if (ca.revoked) return revokeCaForm(ctx, ca, 409, null);
  if (!isOfferedReason(reason)) return revokeCaForm(ctx, ca, 400, 'Choose a reason from the list.', 'unspecified', compromised);
  try {
    await revokeCa(ctx.services.store, ca, { reason, compromised: compromised || undefined, actor: adminActor(ctx) });
  } catch (e) {
    if (e instanceof X509Error) return revokeCaForm(ctx, ca, 400, e.message, reason, compromised);
    // Revoked meanwhile: the page says so.
    if (e instanceof CaError && e.code === 'conflict') return revokeCaForm(ctx, { ...ca, revoked: true }, 409, null);
    throw e;
  }
  redirect(ctx.res, `${ctx.base}cas/${ca.serial}/`);
}
