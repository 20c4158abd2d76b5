/**
 * A certificate authority's page (docs/guides/admin-interface.md): what it is, its state, and what it adds
 * to the certificates it signs — and, for a user with `change_certificateauthority` on it, a form for
 * the REST update's fields (the same model rules and wording, lib/ca/ca-update.ts) plus `enabled` and
 * `api_enabled`, the ACME settings and the CA's ACME policy (acme-form.ts), and the CA's own issuance
 * policy (issuance-policy-form.ts). The change is audited (`ca.updated`, naming the fields;
 * `acme.policy.updated`; `ca.issuance_policy.updated`, old and new) as the signed-in user; the ACME policy is
 * written in the same transaction, and only when it changed. The page also offers the CA certificate and its chain for download and links the
 * URLs it writes into the certificates it signs (CRL, OCSP, CA issuer), and lists its enrolment
 * endpoints kept in the database (enrolment-endpoints-view.ts). With `change_certificateauthority` it
 * also links the CA's revocation (ca-revoke.ts); a revoked CA shows when and why.
 */
import { caPatchFromBody } from '../../ca/ca-update';
import { CaError } from '../../ca/errors';
import { isUsable } from '../../ca/lookup';
import { actingAs, hasAcmeStore, StoreConflictError, type AcmeCaPolicy, type CaRecord, type Store } from '../../ports';
import { X509Error } from '../../x509/errors';
import { formatRfc4514 } from '../../x509/rfc4514';
import { adminActor, caFor, may } from '../access';
import { acmeChange, acmeFacts, acmeFields } from '../acme-form';
import { accessBody, accessUrls, crlBody, crlUrls, lines } from '../ca-form';
import { issuancePolicyChange, issuancePolicyFacts, issuancePolicyFields } from '../issuance-policy-form';
import { colonSerial, isoTime } from '../certificate-view';
import type { SignedInContext } from '../context';
import { caEnrolmentEndpoints, enrolmentEndpointsSection } from '../enrolment-endpoints-view';
import { extensionRows } from '../extension-rows';
import { checkbox, textField } from '../fields';
import { html, type Html } from '../html';
import { redirect, sendPage } from '../page';

const linesField = (name: string, label: string, values: string[] | null): Html =>
  values === null
    ? html`<p>${label}: kept as it is (more than a list of URLs; change it with <code>ca-admin edit_ca</code> or the REST API).</p>`
    : html`<div class="field">
        <label for="${name}">${label} (one URL per line)</label
        ><textarea id="${name}" name="${name}" rows="3" cols="60">${values.join('\n')}</textarea>
      </div>`;
/** The ACME policy of the CA, or null when the store keeps no ACME data. */
const policyOf = (store: Store, ca: CaRecord): Promise<AcmeCaPolicy> | null => (hasAcmeStore(store) ? store.acme.policy(ca.id) : null);

const sameList = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const samePolicy = (a: AcmeCaPolicy, b: AcmeCaPolicy): boolean =>
  a.eabRequired === b.eabRequired && sameList(a.allow, b.allow) && sameList(a.deny, b.deny);

/** A URL the CA writes into certificates, as a link when it is one a browser may follow. */
const urlItem = (url: string): Html => html`<li>${/^https?:\/\//i.test(url) ? html`<a href="${url}">${url}</a>` : url}</li>`;

function publicUrls(ca: CaRecord): Html {
  const crls = crlUrls(ca.signCrlDistributionPoints) ?? [];
  const access = accessUrls(ca.signAuthorityInformationAccess) ?? { ocsp: [], issuers: [] };
  const group = (label: string, urls: string[]) =>
    urls.length
      ? html`<dt>${label}</dt>
          <dd>
            <ul>
              ${urls.map(urlItem)}
            </ul>
          </dd>`
      : null;
  if (!crls.length && !access.ocsp.length && !access.issuers.length) return html`<p>(none)</p>`;
  return html`<dl class="fields">
    ${group('CRL distribution points', crls)} ${group('OCSP', access.ocsp)} ${group('CA issuers', access.issuers)}
  </dl>`;
}

function editForm(ctx: SignedInContext, ca: CaRecord, policy: AcmeCaPolicy | null): Html {
  const access = accessUrls(ca.signAuthorityInformationAccess);
  return html`<h2>Edit</h2>
    <form method="post" action="${ctx.base}cas/${ca.serial}/">
      <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />
      ${textField('name', 'Name', ca.name)} ${checkbox('enabled', 'Enabled (signs certificates)', ca.enabled)}
      ${checkbox('api_enabled', 'REST API enabled', ca.apiEnabled)}
      ${linesField('crl_urls', 'CRL distribution points for the certificates it signs', crlUrls(ca.signCrlDistributionPoints))}
      ${access ? linesField('ocsp_urls', 'OCSP responders for the certificates it signs', access.ocsp) : linesField('ocsp_urls', 'Authority information access', null)}
      ${access ? linesField('issuer_urls', 'CA issuer URLs for the certificates it signs', access.issuers) : null}
      ${textField('website', 'Website', ca.website)} ${textField('terms_of_service', 'Terms of service', ca.termsOfService)}
      ${textField('caa_identity', 'CAA identity', ca.caaIdentity)} ${acmeFields(ca, policy, ctx.services.signing.profiles)}
      ${issuancePolicyFields(ca)}
      <button type="submit">Save</button>
    </form>`;
}

async function caPage(ctx: SignedInContext, ca: CaRecord, status = 200, message: string | null = null): Promise<void> {
  const now = new Date();
  const canEdit = await may(ctx, 'change_certificateauthority', ca.serial);
  const saved = ctx.req.query.saved === '1' && !message;
  const signs = [ca.signCrlDistributionPoints, ca.signAuthorityInformationAccess, ca.signCertificatePolicies, ca.signIssuerAlternativeName];
  const policy = await policyOf(ctx.services.store, ca);
  const endpoints = await caEnrolmentEndpoints(ctx.services.store, ca);
  const path = `${ctx.base}cas/${ca.serial}/`;
  sendPage(ctx, {
    status,
    title: ca.name,
    body: html`<h1>${ca.name}</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      ${saved ? html`<p class="message ok" role="status">Saved.</p>` : null}
      <dl class="fields">
        <dt>Subject</dt>
        <dd>${formatRfc4514(ca.certificate.subject)}</dd>
        <dt>Serial</dt>
        <dd class="mono">${colonSerial(ca.serial)}</dd>
        <dt>Valid</dt>
        <dd>${isoTime(ca.notBefore)} to ${isoTime(ca.notAfter)}</dd>
        <dt>State</dt>
        <dd>
          ${isUsable(ca, now) ? 'usable' : 'cannot sign now'}; ${ca.enabled ? 'enabled' : 'disabled'}; REST API
          ${ca.apiEnabled ? 'enabled' : 'disabled'}; ACME ${ca.acmeEnabled ? 'enabled' : 'disabled'}
        </dd>
        ${
          ca.revoked
            ? html`<dt>Revoked</dt>
                <dd>
                  ${ca.revokedDate ? isoTime(ca.revokedDate) : ''}, reason
                  ${ca.revokedReason || 'unspecified'}${ca.compromised ? html`, key compromised ${isoTime(ca.compromised)}` : null}
                </dd>`
            : null
        }
        <dt>Key storage</dt>
        <dd>${ca.keyBackendAlias}${ca.keyBackendOptions === null ? ' (no private key)' : ''}</dd>
      </dl>
      <p class="actions">
        <a href="${path}download?format=pem" download>Download PEM</a><a href="${path}download?format=der" download>Download DER</a
        ><a href="${path}download?format=chain" download>Download chain (PEM, up to the root)</a>
      </p>
      <p class="actions">
        <a href="${ctx.base}certs/?ca=${ca.serial}">Its certificates</a><a href="${ctx.base}issue?ca=${ca.serial}">Issue with it</a
        ><a href="${ctx.base}cas/${ca.serial}/acme/">ACME accounts</a
        ><a href="${ctx.base}cas/${ca.serial}/enrolment-requests/">Enrolment requests</a>${
          ctx.session.user.permissions.includes('view_auditlog')
            ? html`<a href="${ctx.base}signatures/?ca=${ca.serial}">Its signatures</a>`
            : null
        }
      </p>
      <h2>Added to the certificates it signs</h2>
      ${extensionRows(signs.filter((e) => e !== null))}
      <h2>Its public URLs (written into the certificates it signs)</h2>
      ${publicUrls(ca)}
      <h2>Issuance policy</h2>
      ${issuancePolicyFacts(ca)}
      <h2>ACME</h2>
      ${acmeFacts(ca, policy)}
      ${
        canEdit && policy
          ? html`<form method="post" action="${path}eab-keys">
              <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" /><button type="submit">
                Create an external account binding key
              </button>
            </form>`
          : null
      }
      ${enrolmentEndpointsSection(endpoints)}
      ${canEdit && endpoints ? html`<p><a href="${ctx.base}cas/${ca.serial}/enrolment-endpoints/">Add, edit or delete enrolment endpoints</a></p>` : null}
      ${canEdit ? editForm(ctx, ca, policy) : null}
      ${canEdit && !ca.revoked ? html`<p class="actions"><a href="${path}revoke">Revoke this certificate authority…</a></p>` : null}`,
  });
}

export async function showCa(ctx: SignedInContext): Promise<void> {
  await caPage(ctx, await caFor(ctx, 'view_certificateauthority', ctx.params.ca));
}

export async function updateCa(ctx: SignedInContext): Promise<void> {
  const ca = await caFor(ctx, 'change_certificateauthority', ctx.params.ca);
  const form = ctx.form as URLSearchParams;
  const field = (name: string) => (form.get(name) ?? '').trim();
  const body: Record<string, unknown> = {
    name: field('name'),
    website: field('website'),
    terms_of_service: field('terms_of_service'),
    caa_identity: field('caa_identity'),
  };
  // A list shown read-only (null) is not in the form, so it is not changed.
  if (crlUrls(ca.signCrlDistributionPoints) !== null) body.sign_crl_distribution_points = crlBody(lines(field('crl_urls')));
  if (accessUrls(ca.signAuthorityInformationAccess) !== null)
    body.sign_authority_information_access = accessBody(lines(field('ocsp_urls')), lines(field('issuer_urls')));
  const { store } = ctx.services;
  try {
    // Everything is checked before anything is written: a bad name or profile changes nothing.
    const acme = acmeChange(form, ca, ctx.services.signing.profiles, hasAcmeStore(store));
    const patch = await caPatchFromBody(store, ca, { ...body, ...acme?.body });
    const issuancePolicy = issuancePolicyChange(form);
    if (issuancePolicy !== undefined) patch.issuancePolicy = issuancePolicy;
    // One transaction that names the user: the CA's row (its `ca.updated` event) and its ACME policy.
    await actingAs(store, adminActor(ctx)).transaction(async (tx) => {
      await tx.updateCa(ca.id, { ...patch, enabled: form.get('enabled') === 'on', apiEnabled: form.get('api_enabled') === 'on' });
      if (acme?.policy && hasAcmeStore(tx) && !samePolicy(await tx.acme.policy(ca.id), acme.policy))
        await tx.acme.setPolicy(ca.id, acme.policy);
    });
  } catch (e) {
    if (e instanceof CaError || e instanceof X509Error) return caPage(ctx, ca, 400, e.message);
    if (e instanceof StoreConflictError) return caPage(ctx, ca, 409, 'Another CA took that name meanwhile.');
    throw e;
  }
  redirect(ctx.res, `${ctx.base}cas/${ca.serial}/?saved=1`);
}
