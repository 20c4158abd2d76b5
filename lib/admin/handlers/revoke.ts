/**
 * Revoking a certificate from the interface (docs/guides/admin-interface.md): a confirmation page with the
 * reason and, for the compromise reasons, when the key was compromised; then `revokeCert` (the CLI's
 * and the API's rules, docs/reference/differences.md D13) with the signed-in user as the actor of the audit record. Needs
 * `revoke_certificate` for the CA (403 otherwise, nothing changed). An already revoked certificate is
 * a message, not an error page.
 */
import { CaError } from '../../ca/errors';
import { revokeCert } from '../../ca/revocation';
import { X509Error } from '../../x509/errors';
import { adminActor, caFor } from '../access';
import { colonSerial, primaryName } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { redirect, sendPage } from '../page';
import { isOfferedReason, revocationFields } from '../revocation-fields';
import { certificateOf } from './certificate';

function revokeForm(ctx: SignedInContext, status: number, message: string | null, chosen = 'unspecified', compromised = ''): Promise<void> {
  return certificateOf(ctx).then(({ ca, cert }) => {
    const path = `${ctx.base}certs/${ca.serial}/${cert.serial}/`;
    sendPage(ctx, {
      status,
      title: `Revoke ${primaryName(cert)}`,
      body: html`<h1>Revoke ${primaryName(cert)}</h1>
        ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
        <p>Serial <span class="mono">${colonSerial(cert.serial)}</span>, issued by ${ca.name}.</p>
        ${
          cert.revoked
            ? html`<p class="message">The certificate is already revoked.</p>
                <p><a href="${path}">Back to the certificate</a></p>`
            : html`<form method="post" action="${path}revoke">
                <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />
                ${revocationFields(chosen, compromised)}
                <p>This cannot be undone. Relying parties see it in the next CRL and OCSP answer.</p>
                <button class="danger" type="submit">Revoke</button> <a href="${path}">Cancel</a>
              </form>`
        }`,
    });
  });
}

export async function showRevoke(ctx: SignedInContext): Promise<void> {
  await caFor(ctx, 'revoke_certificate', ctx.params.ca);
  await revokeForm(ctx, 200, null);
}

export async function revoke(ctx: SignedInContext): Promise<void> {
  await caFor(ctx, 'revoke_certificate', ctx.params.ca);
  const { ca, cert } = await certificateOf(ctx);
  const form = ctx.form as URLSearchParams;
  const reason = form.get('reason') ?? 'unspecified';
  const compromised = (form.get('compromised') ?? '').trim();
  if (cert.revoked) return revokeForm(ctx, 409, null);
  if (!isOfferedReason(reason)) return revokeForm(ctx, 400, 'Choose a reason from the list.', 'unspecified', compromised);
  const actor = adminActor(ctx);
  try {
    await revokeCert(ctx.services.store, cert, { reason, compromised: compromised || undefined, actor });
  } catch (e) {
    if (e instanceof X509Error) return revokeForm(ctx, 400, e.message, reason, compromised);
    if (e instanceof CaError && e.code === 'conflict') return revokeForm(ctx, 409, null); // revoked meanwhile
    throw e;
  }
  redirect(ctx.res, `${ctx.base}certs/${ca.serial}/${cert.serial}/`);
}
