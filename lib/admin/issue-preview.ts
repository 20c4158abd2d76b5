/**
 * The issue page's preview: the certificate "Sign" would make from the form, as lib/ca composes it
 * for signing (`previewSignCert`) — subject, subjectAltNames, validity, signature hash, profile and
 * every extension in words — shown before anything is signed or stored.
 */
import type { previewSignCert } from '../cli/certificates';
import { formatRfc4514 } from '../x509/rfc4514';
import type { GeneralName } from '../x509/types';
import { generalNameText, isoTime } from './certificate-view';
import { extensionRows } from './extension-rows';
import { html, type Html } from './html';

export type SignPreview = Awaited<ReturnType<typeof previewSignCert>>;

export function previewSection(p: SignPreview): Html {
  const sanExtension = p.extensions.find((e) => e.type === 'subject_alternative_name');
  const sans = Array.isArray(sanExtension?.value) ? (sanExtension.value as GeneralName[]) : [];
  return html`<section class="preview" aria-labelledby="preview-heading">
    <h2 id="preview-heading">Preview: what "Sign" would sign</h2>
    <p class="message ok" role="status">Nothing has been signed or stored yet.</p>
    <dl class="fields">
      <dt>Subject</dt>
      <dd>${formatRfc4514(p.subject) || '(empty)'}</dd>
      <dt>Subject alternative names</dt>
      <dd>${sans.length ? sans.map((n) => html`${generalNameText(n)}<br />`) : '(none)'}</dd>
      <dt>Not before</dt>
      <dd>${isoTime(p.notBefore)}</dd>
      <dt>Not after</dt>
      <dd>${isoTime(p.notAfter)}</dd>
      <dt>Signature hash</dt>
      <dd>${p.hash ?? '(none: the CA’s key type names no hash)'}</dd>
      <dt>Profile</dt>
      <dd>${p.profile}</dd>
    </dl>
    <h3>Extensions</h3>
    ${extensionRows(p.extensions)}
  </section>`;
}
