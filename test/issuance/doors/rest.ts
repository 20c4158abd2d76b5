/**
 * The REST API's sign and resign (docs/guides/rest-api.md): the order is placed, finished by the runner in
 * the request, and read back; a refusal is the POST's 400/422 or the order ending `failed`.
 */
import request from 'supertest';
import type { Response } from 'supertest';
import { waitForOrder } from '../../api/fixture';
import { csrOf, notAfterOf, sanJson, type IssuanceRequest } from '../requests';
import { API, type World } from '../world';
import { pemOf, prePolicyCertificate } from './pre-policy';
import type { Door, Outcome } from './outcome';

/** The text of an error body: `detail` as a string, or the messages of a 422's list. */
function detailText(body: unknown): string {
  const detail = (body as { detail?: unknown })?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((d: { msg?: string }) => d.msg ?? JSON.stringify(d)).join(' ');
  return JSON.stringify(body);
}

async function orderOutcome(world: World, req: IssuanceRequest, res: Response): Promise<Outcome> {
  const ca = world.cas[req.ca].record;
  if (res.status >= 400 && res.status < 500) {
    if (!/application\/json/.test(res.headers['content-type'] ?? '')) return { result: 'unexpected', how: `${res.status} not JSON` };
    return { result: 'refused', how: String(res.status), text: detailText(res.body) };
  }
  if (res.status !== 200) return { result: 'unexpected', how: `${res.status} ${res.text.slice(0, 200)}` };
  const done = await waitForOrder(world.api.app, ca.serial, res.body.slug, world.auth);
  if (done.status === 'failed') return { result: 'refused', how: 'order failed', text: done.error };
  if (done.status !== 'issued' || !done.serial) return { result: 'unexpected', how: `order ${done.status}` };
  const cert = await world.store.findCertificate(ca.id, done.serial);
  if (!cert) return { result: 'unexpected', how: 'issued order without its certificate' };
  return { result: 'issued', pem: pemOf(cert.der), how: 'order issued' };
}

/** POST /ca/{serial}/sign/ with the CSR, the subject and the SANs, and `not_after` when days are asked. */
export const restSign: Door = async (world, req) => {
  const csr = csrOf(world, req);
  const notAfter = notAfterOf(req);
  const body: Record<string, unknown> = {
    csr: csr.pem,
    subject: req.cn !== undefined ? [{ oid: 'CN', value: req.cn }] : [],
  };
  if (req.sans?.length) body.extensions = [{ type: 'subject_alternative_name', value: sanJson(req) }];
  if (notAfter) body.not_after = notAfter.toISOString();
  const res = await request(world.api.app).post(`${API}/ca/${world.cas[req.ca].record.serial}/sign/`).set(world.auth).send(body);
  return orderOutcome(world, req, res);
};

/** POST /ca/{serial}/certs/{serial}/resign/ of a certificate of the request made before the policy. */
export const restResign: Door = async (world, req) => {
  const old = await prePolicyCertificate(world, req);
  const notAfter = notAfterOf(req);
  const res = await request(world.api.app)
    .post(`${API}/ca/${world.cas[req.ca].record.serial}/certs/${old.serial}/resign/`)
    .set(world.auth)
    .send(notAfter ? { not_after: notAfter.toISOString() } : {});
  return { ...(await orderOutcome(world, req, res)), prepared: 1 };
};
