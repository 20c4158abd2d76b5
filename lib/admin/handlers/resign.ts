/**
 * Resigning a certificate (docs/guides/admin-interface.md): its stored CSR signed again now with the same
 * subject, subjectAltNames and hash and a fresh validity, by `resignCert` — the rules of `ca-admin
 * resign_cert` (the CA enabled and valid, the profile configured, the CA's lifetime not outlived). The
 * form is prefilled with the certificate's profile and that profile's lifetime in days; a bad value is
 * a message on the page and nothing is issued. Needs `sign_certificate` for the CA, as the REST API's
 * `POST /ca/{serial}/certs/{serial}/resign/`; the new certificate is audited as the signed-in user and
 * its page follows (303).
 */
import { resignCert } from '../../cli/certificates';
import { CaError } from '../../ca/errors';
import type { CaRecord, CertificateRecord } from '../../ports';
import { DAY_MS } from '../../x509/datetime';
import { X509Error } from '../../x509/errors';
import { adminActor, caFor, notFoundPage } from '../access';
import { colonSerial, primaryName } from '../certificate-view';
import type { SignedInContext } from '../context';
import { html } from '../html';
import { ISSUED_NOTICE } from '../issued-notice';
import { redirect, sendPage } from '../page';

interface ResignFields {
  profile: string;
  days: string;
}

/** The CA and certificate of a `certs/{ca}/{serial}/resign` path, for a user who may sign with the CA. */
async function target(ctx: SignedInContext): Promise<{ ca: CaRecord; cert: CertificateRecord }> {
  const ca = await caFor(ctx, 'sign_certificate', ctx.params.ca);
  const cert = await ctx.services.store.findCertificate(ca.id, ctx.params.serial);
  if (!cert) throw notFoundPage('The certificate');
  return { ca, cert };
}

/** Why this interface cannot resign it at all (no CSR, no key it can reach), or null. */
function whyNot(ctx: SignedInContext, ca: CaRecord, cert: CertificateRecord): string | null {
  if (!cert.csr) return 'The certificate has no CSR (it was imported), so it cannot be resigned.';
  if (ca.keyBackendOptions === null || !Object.hasOwn(ctx.services.signing.keyBackends, ca.keyBackendAlias))
    return `This interface cannot sign with ${ca.name}: its key is not in a key backend of this interface.`;
  return null;
}

function resignPage(
  ctx: SignedInContext,
  ca: CaRecord,
  cert: CertificateRecord,
  f: ResignFields,
  status = 200,
  message: string | null = null,
): void {
  const { profiles } = ctx.services.signing;
  const path = `${ctx.base}certs/${ca.serial}/${cert.serial}/`;
  const why = whyNot(ctx, ca, cert);
  sendPage(ctx, {
    status: why ? 409 : status,
    title: `Resign ${primaryName(cert)}`,
    body: html`<h1>Resign ${primaryName(cert)}</h1>
      <p>
        Signs the stored CSR of <span class="mono">${colonSerial(cert.serial)}</span> again with ${ca.name}: the same subject,
        subjectAltNames and hash, a validity from now. The old certificate stays valid until it expires or is revoked.
      </p>
      ${message || why ? html`<p class="message error" role="alert">${why ?? message}</p>` : null}
      ${
        why
          ? null
          : html`<form method="post" action="${path}resign">
              <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />
              <div class="field">
                <label for="profile">Profile</label
                ><select id="profile" name="profile">
                  ${[...profiles.keys()].map((p) => html`<option value="${p}" ${p === f.profile ? html` selected` : null}>${p}</option>`)}
                </select>
              </div>
              <div class="field">
                <label for="days">Valid for (days)</label><input id="days" name="days" inputmode="numeric" size="6" value="${f.days}" />
              </div>
              <button type="submit">Sign again</button>
            </form>`
      }
      <p><a href="${path}">Back to the certificate</a></p>`,
  });
}

export async function showResign(ctx: SignedInContext): Promise<void> {
  const { ca, cert } = await target(ctx);
  const { profiles, defaultProfile } = ctx.services.signing;
  const known = profiles.get(cert.profile);
  const profile = known ? cert.profile : defaultProfile;
  const days = Math.floor((profiles.get(profile)?.expiresMs ?? 0) / DAY_MS);
  const note = known ? null : `The certificate's profile "${cert.profile}" is no longer configured: choose one.`;
  resignPage(ctx, ca, cert, { profile, days: days > 0 ? String(days) : '' }, 200, note);
}

export async function resign(ctx: SignedInContext): Promise<void> {
  const { ca, cert } = await target(ctx);
  const form = ctx.form as URLSearchParams;
  const f: ResignFields = { profile: (form.get('profile') ?? '').trim(), days: (form.get('days') ?? '').trim() };
  if (whyNot(ctx, ca, cert)) return resignPage(ctx, ca, cert, f);
  const days = f.days === '' ? undefined : Number(f.days);
  if (days !== undefined && !(Number.isInteger(days) && days > 0))
    return resignPage(ctx, ca, cert, f, 400, 'Valid for: a whole number of days, at least 1.');
  try {
    const renewed = await resignCert({
      ...ctx.services.signing,
      store: ctx.services.store,
      cert,
      profile: f.profile,
      expiresDays: days, // undefined: the profile's lifetime
      requester: adminActor(ctx),
    });
    redirect(ctx.res, `${ctx.base}certs/${ca.serial}/${renewed.serial}/?${ISSUED_NOTICE}`);
  } catch (e) {
    if (e instanceof CaError || e instanceof X509Error) return resignPage(ctx, ca, cert, f, 400, e.message);
    throw e;
  }
}
