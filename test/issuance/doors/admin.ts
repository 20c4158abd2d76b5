/**
 * The admin interface's Issue page (docs/guides/admin-interface.md): the form signed in as alice, with the
 * CSR, the subject and SANs as the operator types them (what Read CSR would fill in) and the days
 * when asked, "Sign without a subjectAltName" ticked when there is none, "Sign". A refusal is the
 * form again with a 400 and the message in its alert.
 */
import { formToken } from '../../admin/admin-fixture';
import { csrOf } from '../requests';
import { ADMIN } from '../world';
import { pemOf } from './pre-policy';
import type { Door } from './outcome';

const unescapeHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&#x27;/g, "'")
    .replace(/&amp;/g, '&');

export const admin: Door = async (world, req) => {
  const csr = csrOf(world, req);
  const ca = world.cas[req.ca].record;
  const page = await world.admin.get(`${ADMIN}issue`).expect(200);
  const res = await world.admin
    .post(`${ADMIN}issue`)
    .type('form')
    .send({
      _csrf: formToken(page.text, `${ADMIN}issue`),
      ca: ca.serial,
      profile: 'webserver',
      csr: csr.pem,
      subject: req.cn !== undefined ? `CN=${req.cn}` : '',
      san: (req.sans ?? []).join('\n'),
      days: req.days === undefined ? '' : String(req.days),
      action: 'sign',
      // A server certificate without a SAN is signed once the operator ticks that they mean it.
      ...(req.sans?.length ? {} : { no_san: 'on' }),
    });
  if (res.status === 400) {
    const alert = /<p class="message error" role="alert">([\s\S]*?)<\/p>/.exec(res.text);
    if (!alert) return { result: 'unexpected', how: '400 without a message' };
    return { result: 'refused', how: '400', text: unescapeHtml(alert[1]) };
  }
  // A CA the user may not sign with now (disabled, revoked) is not offered: the 403 page.
  if (res.status === 403) return { result: 'refused', how: '403', text: null };
  const issued = res.status === 303 ? /\/certs\/[0-9A-F]+\/([0-9A-F]+)\/\?issued=1$/.exec(res.headers.location ?? '') : null;
  if (!issued) return { result: 'unexpected', how: `${res.status} ${res.headers.location ?? res.text.slice(0, 200)}` };
  const cert = await world.store.findCertificate(ca.id, issued[1]);
  return cert ? { result: 'issued', pem: pemOf(cert.der), how: '303' } : { result: 'unexpected', how: 'redirected to no certificate' };
};
