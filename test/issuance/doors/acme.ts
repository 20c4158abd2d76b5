/**
 * ACME (RFC 8555): an account per CA, a new order for the request's names (its SANs, else its CN) with
 * `notAfter` when days are asked, http-01 answered by the world's responder, finalize with the CSR,
 * the certificate downloaded. A refusal is a problem document at new-order or at finalize (or the
 * order turned invalid).
 */
import * as crypto from 'crypto';
import { WireClient, problemType, send, type WireAnswer } from '../../helpers/acme-wire';
import { csrOf, notAfterOf, type IssuanceRequest } from '../requests';
import type { CaName, World } from '../world';
import type { Door, Outcome } from './outcome';

const clients = new WeakMap<World, Map<CaName, WireClient>>();

/** A registered account at the CA's directory, or the problem the directory or new-account answered. */
async function clientFor(world: World, ca: CaName): Promise<WireClient | Outcome> {
  let byCa = clients.get(world);
  if (!byCa) clients.set(world, (byCa = new Map()));
  let c = byCa.get(ca);
  if (!c) {
    const url = `${world.base}/django_ca/acme/directory/${world.cas[ca].record.serial}/`;
    const directory = await send(url);
    if (directory.status !== 200) return refusal(directory, 'directory');
    c = await new WireClient(url).init();
    const registered = await c.register();
    if (registered.status !== 201) return refusal(registered, 'new-account');
    byCa.set(ca, c);
  }
  return c;
}

function identifiersOf(req: IssuanceRequest): { type: string; value: string }[] {
  const names = req.sans?.length ? req.sans : req.cn !== undefined ? [`${/^[\d.]+$|:/.test(req.cn) ? 'IP' : 'DNS'}:${req.cn}`] : [];
  return names.map((s) => {
    const at = s.indexOf(':');
    return { type: s.slice(0, at) === 'IP' ? 'ip' : 'dns', value: s.slice(at + 1) };
  });
}

function refusal(answer: WireAnswer, at: string): Outcome {
  const type = problemType(answer);
  if (!type.startsWith('urn:ietf:params:acme:error:') || !/problem\+json/.test(answer.headers.get('content-type') ?? '')) {
    return { result: 'unexpected', how: `${answer.status} at ${at}: ${answer.text.slice(0, 200)}` };
  }
  const short = type.replace('urn:ietf:params:acme:error:', '');
  return { result: 'refused', how: `${short} at ${at}`, text: (answer.body as { detail?: string }).detail ?? null, acmeType: short };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const acme: Door = async (world, req) => {
  const c = await clientFor(world, req.ca);
  if (!(c instanceof WireClient)) return c;
  const identifiers = identifiersOf(req);
  const notAfter = notAfterOf(req);
  const placed = await c.post(c.directory.newOrder, { identifiers, ...(notAfter ? { notAfter: notAfter.toISOString() } : {}) });
  if (placed.status !== 201) return refusal(placed, 'new-order');
  const orderUrl = placed.headers.get('location') as string;
  const order = placed.body as { authorizations: string[]; finalize: string };
  for (const identifier of identifiers) if (identifier.type === 'dns') world.dns.setA(identifier.value, ['127.0.0.1']);
  const thumbprint = crypto
    .createHash('sha256')
    .update(JSON.stringify({ crv: c.key.jwk.crv, kty: 'EC', x: c.key.jwk.x, y: c.key.jwk.y }))
    .digest('base64url');
  for (const authzUrl of order.authorizations) {
    const authz = (await c.post(authzUrl, undefined)).body as {
      status: string;
      challenges: { type: string; token: string; url: string }[];
    };
    if (authz.status === 'valid') continue;
    const challenge = authz.challenges.find((ch) => ch.type === 'http-01');
    if (!challenge) return { result: 'unexpected', how: `no http-01 challenge: ${JSON.stringify(authz)}` };
    world.http01.set(challenge.token, `${challenge.token}.${thumbprint}`);
    const started = await c.post(challenge.url, {});
    if (started.status !== 200) return refusal(started, 'challenge');
  }
  let status = '';
  for (let i = 0; i < 200; i++) {
    const seen = await c.post(orderUrl, undefined);
    status = (seen.body as { status: string }).status;
    if (status !== 'pending') break;
    await sleep(25);
  }
  if (status === 'invalid') return { result: 'refused', how: 'order invalid before finalize', text: null };
  if (status !== 'ready') return { result: 'unexpected', how: `order ${status} before finalize` };

  const csr = csrOf(world, req);
  let done = await c.post(order.finalize, { csr: csr.der.toString('base64url') });
  if (done.status !== 200) return refusal(done, 'finalize');
  for (let i = 0; i < 200 && (done.body as { status: string }).status === 'processing'; i++) {
    await sleep(25);
    done = await c.post(orderUrl, undefined);
  }
  const final = done.body as { status: string; certificate?: string; error?: { type: string; detail: string } };
  if (final.status === 'invalid') {
    const type = (final.error?.type ?? '').replace('urn:ietf:params:acme:error:', '');
    return { result: 'refused', how: `order invalid after finalize (${type})`, text: final.error?.detail ?? null, acmeType: type };
  }
  if (final.status !== 'valid' || !final.certificate) return { result: 'unexpected', how: `order ${final.status} after finalize` };
  const chain = await c.post(final.certificate, undefined);
  const leaf = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(chain.text);
  if (!leaf) return { result: 'unexpected', how: 'no certificate in the chain' };
  return { result: 'issued', pem: leaf[0], how: 'valid' };
};
