/**
 * Issuing from a CSR (docs/guides/admin-interface.md): paste a CSR (or, with the page's script, read it from
 * a file: csr-file-script.ts), "Read CSR" fills the subject and the subjectAltNames from it (what is
 * signed is what the form says, never silently the CSR), choose CA, profile (each with its
 * description and lifetime; the configured default profile first chosen); "Preview" shows what would
 * be signed, composed as signing composes it, writing nothing; "Sign". No CA is chosen for the user
 * unless exactly one issuing CA (one with a parent) is offered: a root signs end-entity certificates
 * only when someone picks it. A server certificate (its profile's extended key usage has serverAuth)
 * without a subjectAltName is signed only once the user ticks that they mean it: TLS clients match a
 * host name against the subjectAltNames alone (RFC 9525 §6.3; RFC 6125 before it), so browsers refuse
 * such a certificate. `signCert` applies the command line's rules (the profile, a CN or a
 * SAN required, the CA usable and not outlived) and the certificate is audited as the signed-in user
 * over protocol `admin`. Needs `sign_certificate` for the chosen CA; only usable CAs whose key this
 * interface can reach are offered, and when there is none the page says why.
 */
import { previewSignCert, signCert } from '../../cli/certificates';
import { CaError } from '../../ca/errors';
import { isUsable } from '../../ca/lookup';
import type { CaRecord } from '../../ports';
import { parseCsr, type ParsedCsr } from '../../x509/csr';
import { X509Error } from '../../x509/errors';
import { parseRfc4514 } from '../../x509/rfc4514';
import { adminActor, casWith, forbiddenPage } from '../access';
import type { SignedInContext } from '../context';
import { html, type Html } from '../html';
import { CSR_FILE_SCRIPT_HASH } from '../csr-file-script';
import { csrKeyText, fieldsFromCsr, lifetimeText, sanLines } from '../issue-form';
import { previewSection, type SignPreview } from '../issue-preview';
import { ISSUED_NOTICE } from '../issued-notice';
import { redirect, sendPage } from '../page';

interface IssueFields {
  ca: string;
  profile: string;
  csr: string;
  subject: string;
  san: string;
  days: string;
  /** `on`: the user confirmed a server certificate without subjectAltName. */
  noSan: string;
}

const SERVER_AUTH = new Set(['serverAuth', '1.3.6.1.5.5.7.3.1']);

/** Whether `profile` makes server certificates: its extended key usage names serverAuth. */
function isServerProfile(ctx: SignedInContext, profile: string): boolean {
  const eku = ctx.services.signing.profiles.get(profile)?.extensions.extended_key_usage?.value;
  return Array.isArray(eku) && eku.some((usage) => SERVER_AUTH.has(String(usage)));
}

/** The CA chosen for the user: the only issuing CA (one with a parent) offered, else none. */
function preselectedCa(cas: readonly CaRecord[]): string {
  const issuing = cas.filter((ca) => ca.parentId !== null);
  return issuing.length === 1 ? issuing[0].serial : '';
}

const noSanWarning = (profile: string): string =>
  `Profile ${profile} makes a server certificate, and it has no subjectAltName: browsers and other TLS clients ` +
  'match the host name against the subjectAltNames only, never the common name, and refuse it. Add the names ' +
  '(DNS:host.example.com), or tick "Sign without a subjectAltName" and sign again.';

/** CAs the user may sign with, usable now, whose key one of the interface's backends holds. */
async function signingCas(ctx: SignedInContext): Promise<CaRecord[]> {
  const now = new Date();
  const { keyBackends } = ctx.services.signing;
  return (await casWith(ctx, 'sign_certificate')).filter(
    (ca) => isUsable(ca, now) && ca.keyBackendOptions !== null && Object.hasOwn(keyBackends, ca.keyBackendAlias),
  );
}

function unavailable(ctx: SignedInContext, why: string): void {
  sendPage(ctx, {
    title: 'Issue a certificate',
    body: html`<h1>Issue a certificate</h1>
      <p class="message" role="status">${why}</p>`,
  });
}

function form(
  ctx: SignedInContext,
  cas: CaRecord[],
  f: IssueFields,
  status = 200,
  message: string | null = null,
  csr: ParsedCsr | null = null,
  preview: SignPreview | null = null,
  askNoSan = false,
): void {
  const { profiles } = ctx.services.signing;
  const option = (value: string, label: string, chosen: string): Html =>
    html`<option value="${value}" ${value === chosen ? html` selected` : null}>${label}</option>`;
  sendPage(ctx, {
    status,
    title: 'Issue a certificate',
    body: html`<h1>Issue a certificate</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      ${csr ? html`<p class="message ok" role="status">The CSR asks for ${f.subject || 'no subject'}; key ${csrKeyText(csr)}; its signature is valid.</p>` : null}
      ${preview ? previewSection(preview) : null}
      <form method="post" action="${ctx.base}issue">
        <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />
        <div class="field">
          <label for="csr">Certificate signing request (PEM)</label
          ><textarea id="csr" name="csr" rows="10" cols="70" class="mono">${f.csr}</textarea>
        </div>
        <div class="field" hidden>
          <label for="csr-file">Or read it from a file (.csr, .pem, .der)</label
          ><input id="csr-file" type="file" accept=".csr,.pem,.der,.req,application/pkcs10" />
          <p id="csr-file-status" role="status"></p>
        </div>
        <div class="actions"><button type="submit" name="action" value="read">Read CSR</button></div>
        <div class="field">
          <label for="ca">Certificate authority</label
          ><select id="ca" name="ca">
            ${cas.some((ca) => ca.serial === f.ca) ? null : html`<option value="" selected>Choose a CA</option>`}
            ${cas.map((ca) => option(ca.serial, ca.parentId === null ? `${ca.name} (root)` : ca.name, f.ca))}
          </select>
        </div>
        <div class="field">
          <label for="profile">Profile</label
          ><select id="profile" name="profile">
            ${[...profiles].map(([name, p]) => option(name, `${p.description ? `${name}: ${p.description}` : name} (${lifetimeText(p.expiresMs)})`, f.profile))}
          </select>
          <p><a href="${ctx.base}profiles/">What each profile puts into a certificate</a></p>
        </div>
        <div class="field">
          <label for="subject">Subject (RFC 4514, e.g. CN=host.example.com,O=Example)</label
          ><input id="subject" name="subject" size="60" value="${f.subject}" />
        </div>
        <div class="field">
          <label for="san">Subject alternative names (one per line: DNS:, IP:, email:, URI:)</label
          ><textarea id="san" name="san" rows="4" cols="60">${f.san}</textarea>
        </div>
        <div class="field">
          <label for="days">Valid for (days; empty: the profile's)</label
          ><input id="days" name="days" inputmode="numeric" size="6" value="${f.days}" />
        </div>
        ${
          askNoSan
            ? html`<div class="field">
                <input type="checkbox" id="no-san" name="no_san" value="on" />
                <label class="inline" for="no-san">Sign without a subjectAltName (TLS clients will refuse it)</label>
              </div>`
            : null
        }
        <div class="actions">
          <button type="submit" name="action" value="preview">Preview</button>
          <button type="submit" name="action" value="sign">Sign</button>
        </div>
      </form>
      <script src="${ctx.base}assets/csr-file.js?v=${CSR_FILE_SCRIPT_HASH}" defer></script>`,
  });
}

export async function showIssue(ctx: SignedInContext): Promise<void> {
  const cas = await signingCas(ctx);
  if (cas.length === 0) return unavailable(ctx, whyNoCa(ctx));
  const chosen = typeof ctx.req.query.ca === 'string' ? ctx.req.query.ca : preselectedCa(cas);
  form(ctx, cas, { ca: chosen, profile: ctx.services.signing.defaultProfile, csr: '', subject: '', san: '', days: '', noSan: '' });
}

function whyNoCa(ctx: SignedInContext): string {
  if (Object.keys(ctx.services.signing.keyBackends).length === 0) {
    return 'Issuing is not available here: this interface has no key backend (set CA_KEY_ENCRYPTION_KEY or pass keyBackends to createCaAdminRouter).';
  }
  return 'There is no CA you may sign with that is enabled, valid now and has its key in a backend of this interface.';
}

export async function issue(ctx: SignedInContext): Promise<void> {
  const body = ctx.form as URLSearchParams;
  const text = (name: string) => (body.get(name) ?? '').trim();
  const f: IssueFields = {
    ca: text('ca'),
    profile: text('profile'),
    csr: text('csr'),
    subject: text('subject'),
    san: text('san'),
    days: text('days'),
    noSan: text('no_san'),
  };
  const cas = await signingCas(ctx);
  const ca = cas.find((c) => c.serial === f.ca);
  if (!ca && f.ca !== '') throw forbiddenPage(); // not one the user may sign with (or not usable): nothing is signed
  let csr: ParsedCsr;
  try {
    csr = parseCsr(f.csr);
  } catch (e) {
    if (e instanceof X509Error) return form(ctx, cas, f, 400, `Not a usable CSR: ${e.message}`);
    throw e;
  }
  const action = body.get('action');
  // Signing takes what the form says, never silently the CSR: a form without subject and names is
  // filled from the CSR first (as Read CSR), to be looked at. A preview fills it and shows it at once.
  if (action === 'preview' && !f.subject && !f.san) Object.assign(f, fieldsFromCsr(csr));
  if ((action !== 'sign' && action !== 'preview') || (!f.subject && !f.san)) {
    return form(ctx, cas, { ...f, ...fieldsFromCsr(csr) }, 200, null, csr);
  }
  if (!ca) return form(ctx, cas, f, 400, 'Choose the certificate authority to sign with.');
  const days = f.days === '' ? undefined : Number(f.days);
  if (days !== undefined && !(Number.isInteger(days) && days > 0))
    return form(ctx, cas, f, 400, 'Valid for: a whole number of days, at least 1.');
  try {
    const names = sanLines(f.san);
    const request = {
      ...ctx.services.signing,
      store: ctx.services.store,
      ca,
      csr: f.csr,
      subject: f.subject ? parseRfc4514(f.subject) : [],
      extensions: names.length ? [{ type: 'subject_alternative_name', critical: false, value: names }] : [],
      profile: f.profile,
      expiresDays: days, // undefined: the profile's lifetime
    };
    if (action === 'preview') return form(ctx, cas, f, 200, null, null, await previewSignCert(request));
    if (names.length === 0 && f.noSan !== 'on' && isServerProfile(ctx, f.profile)) {
      return form(ctx, cas, f, 400, noSanWarning(f.profile), null, null, true);
    }
    const cert = await signCert({ ...request, requester: adminActor(ctx) });
    redirect(ctx.res, `${ctx.base}certs/${ca.serial}/${cert.serial}/?${ISSUED_NOTICE}`); // its page says it was issued
  } catch (e) {
    if (e instanceof X509Error || e instanceof CaError) return form(ctx, cas, f, 400, e.message);
    throw e;
  }
}
