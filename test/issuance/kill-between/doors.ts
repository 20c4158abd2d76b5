/**
 * The four ways a client asks the CA for a certificate over the network, for kill-between.test.ts,
 * each in three steps around the death of the instance that signs (A):
 * - `prepare`: what the client does before the request that signs (ACME: an account, an order and its
 *   validation; SCEP: GetCACert, as clients fetch the RA certificate first);
 * - `send`: that request, to A;
 * - `finish`: after A is dead, the client's own way to its certificate at the survivor B — the door's
 *   retry where the protocol has one: a REST order is finished by B's order runner, an ACME order in
 *   `processing` by B's ACME runner; an EST client enrols again, a SCEP client sends its PKCSReq again
 *   with the same transactionID. It ends with the certificate the client received (DER).
 * REST and ACME answer with an order while the signing goes on (`answersWhileSigning`); EST and SCEP
 * answer with the certificate, so their answer dies with A.
 */
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as acme from 'acme-client';
import type { CaRecord } from '../../../lib';
import { jwkThumbprint, type PublicJwk } from '../../../lib/acme/jwk';
import { opensslCsr } from '../../api/fixture';
import { WireClient } from '../../helpers/acme-wire';
import type { TestDnsServer } from '../../helpers/dns-server';
import { buildRequest, csrOf, envelope, makeDevice, readCertRep, type Device } from '../../helpers/scep-request';
import { sleep, until, type Host } from './hosts';

export const SCEP_CHALLENGE = 'kill between';

/** What every door needs: the CA, a scratch directory, ACME's name server and http-01 answers, the API user. */
export interface DoorWorld {
  ca: CaRecord;
  dir: string;
  dns: TestDnsServer;
  http01: Map<string, string>;
  auth: { Authorization: string };
}

/** What a client got back (and what the ledger checks against the rows). */
export interface Received {
  der: Buffer;
  /** The answers the client had on the way (for a failure message). */
  answers: string[];
}

export interface Door<S = unknown> {
  answersWhileSigning: boolean;
  prepare(world: DoorWorld, a: Host): Promise<S>;
  send(world: DoorWorld, a: Host, state: S): Promise<void>;
  finish(world: DoorWorld, a: Host, b: Host, state: S): Promise<Received>;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const derOfPem = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
const firstCertificate = (pem: string): Buffer => {
  const found = pem.match(PEM_CERTIFICATE);
  if (!found) throw new Error(`no certificate in ${pem.slice(0, 200)}`);
  return derOfPem(found[0]);
};
const name = (door: string) => `${door}-${randomBytes(4).toString('hex')}.kill.example.com`;

/** One try of `attempt` against B after another, while its answer says "later" (or B's socket fails), for up to 30 s. */
async function retrying<T>(answers: string[], attempt: () => Promise<{ done: T } | { later: string }>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const outcome = await attempt().catch((e: unknown) => ({ later: `no answer: ${String(e)}` }));
    if ('done' in outcome) return outcome.done;
    answers.push(outcome.later);
    if (Date.now() > deadline) throw new Error(`no certificate after ${answers.length} tries: ${answers.join('; ')}`);
    await sleep(200);
  }
}

/** REST sign (queued: the order is durable work, docs/reference/differences.md D3); the order's certificate from the inventory. */
export const rest: Door<{ slug?: string }> = {
  answersWhileSigning: true,
  prepare: async () => ({}),
  async send(world, a, state) {
    const res = await fetch(`${a.url}/django_ca/api/ca/${world.ca.serial}/sign/`, {
      method: 'POST',
      headers: { ...world.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ csr: opensslCsr('EC').csr, subject: [{ oid: 'CN', value: name('rest') }] }),
    });
    if (res.status !== 200) throw new Error(`sign: ${res.status} ${await res.text()}`);
    state.slug = ((await res.json()) as { slug: string }).slug;
  },
  async finish(world, _a, b, state) {
    const answers: string[] = [];
    const order = await until('the order finished by B', async () => {
      const r = await fetch(`${b.url}/django_ca/api/ca/${world.ca.serial}/orders/${state.slug}/`, { headers: world.auth });
      const body = (await r.json()) as { status: string; serial: string | null };
      return body.status !== 'pending' && body;
    });
    answers.push(`order ${order.status}`);
    if (order.status !== 'issued') throw new Error(`order ${JSON.stringify(order)}`);
    const cert = await fetch(`${b.url}/django_ca/api/ca/${world.ca.serial}/certs/${order.serial}/`, { headers: world.auth });
    const body = (await cert.json()) as { certificate: { pem: string } };
    return { der: firstCertificate(body.certificate.pem), answers };
  },
};

interface AcmeState {
  client: WireClient;
  orderUrl: string;
  finalize: string;
  csr: string;
}

/** ACME finalize (RFC 8555 §7.4) of a ready order; the certificate downloaded from B. */
export const acmeDoor: Door<AcmeState> = {
  answersWhileSigning: true,
  async prepare(world, a) {
    const identifier = name('acme');
    world.dns.setA(identifier, ['127.0.0.1']);
    const client = await new WireClient(`${a.url}/django_ca/acme/directory/${world.ca.serial}/`).init();
    await client.register();
    const created = await client.post(client.directory.newOrder, { identifiers: [{ type: 'dns', value: identifier }] });
    if (created.status !== 201) throw new Error(`newOrder: ${created.status} ${created.text}`);
    const orderUrl = created.headers.get('location') as string;
    const { authorizations, finalize } = created.body as { authorizations: string[]; finalize: string };
    const authz = (await client.post(authorizations[0], undefined)).body as { challenges: { type: string; url: string; token: string }[] };
    const challenge = authz.challenges.find((c) => c.type === 'http-01');
    if (!challenge) throw new Error('no http-01 challenge');
    world.http01.set(challenge.token, `${challenge.token}.${jwkThumbprint(client.key.jwk as unknown as PublicJwk)}`);
    await client.post(challenge.url, {});
    await until('the order ready', async () => ((await client.post(orderUrl, undefined)).body as { status: string }).status === 'ready');
    const [, csrPem] = await acme.crypto.createCsr({ commonName: identifier });
    return { client, orderUrl, finalize, csr: derOfPem(csrPem.toString()).toString('base64url') };
  },
  async send(_world, _a, state) {
    // Answered after finalizeWaitMs with the order `processing`: A's signature is held.
    const answered = await state.client.post(state.finalize, { csr: state.csr });
    const status = (answered.body as { status?: string }).status;
    if (answered.status !== 200 || status !== 'processing') throw new Error(`finalize: ${answered.status} ${answered.text}`);
  },
  async finish(world, a, b, state) {
    const viaB = await new WireClient(`${b.url}/django_ca/acme/directory/${world.ca.serial}/`, state.client.key).init();
    viaB.kid = (state.client.kid as string).replace(a.url, b.url);
    const answers: string[] = [];
    const order = await until('the order finished by B', async () => {
      const body = (await viaB.post(state.orderUrl.replace(a.url, b.url), undefined)).body as { status: string; certificate?: string };
      return body.status !== 'processing' && body;
    });
    answers.push(`order ${order.status}`);
    if (order.status !== 'valid') throw new Error(`order ${JSON.stringify(order)}`);
    const chain = await viaB.post(order.certificate as string, undefined);
    if (chain.status !== 200) throw new Error(`certificate: ${chain.status} ${chain.text}`);
    return { der: firstCertificate(chain.text), answers };
  },
};

/** EST simpleenroll (RFC 7030 §4.2.1); enrolling again at B is the client's retry. */
export const est: Door<{ csr: string }> = {
  answersWhileSigning: false,
  prepare: async () => ({ csr: derOfPem(opensslCsr('EC', name('est')).csr).toString('base64') }),
  async send(world, a, state) {
    await estEnrol(world, a, state.csr);
  },
  async finish(world, _a, b, state) {
    const answers: string[] = [];
    const der = await retrying<Buffer>(answers, async () => {
      const res = await estEnrol(world, b, state.csr);
      if (res.status === 200) return { done: firstCertificate(pkcs7Certificates(Buffer.from(await res.text(), 'base64'))) };
      return { later: `${res.status} ${(await res.text()).slice(0, 200)}` };
    });
    return { der, answers };
  },
};

function estEnrol(world: DoorWorld, host: Host, csr: string): Promise<Response> {
  return fetch(`${host.url}/.well-known/est/simpleenroll`, {
    method: 'POST',
    headers: { ...world.auth, 'Content-Type': 'application/pkcs10' },
    body: csr,
  });
}

const pkcs7Certificates = (der: Buffer): string =>
  execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: der }).toString();

interface ScepState {
  device: Device;
  ra: string;
  csr: Buffer;
  transactionId: string;
}

/** SCEP PKIOperation PKCSReq (RFC 8894 §3.3.1); the same request again at B — same transactionID, signer and CSR — is the client's retry. */
export const scep: Door<ScepState> = {
  answersWhileSigning: false,
  async prepare(world, a) {
    const res = await fetch(`${a.url}/django_ca/scep?operation=GetCACert`);
    if (res.status !== 200) throw new Error(`GetCACert: ${res.status}`);
    const ra = pkcs7Certificates(Buffer.from(await res.arrayBuffer())).match(PEM_CERTIFICATE)?.[0];
    if (!ra) throw new Error('GetCACert without a certificate');
    const cn = name('scep');
    const device = makeDevice(world.dir, `device-${randomBytes(4).toString('hex')}`, cn);
    return { device, ra: `${ra}\n`, csr: csrOf(world.dir, device.key, cn, SCEP_CHALLENGE), transactionId: randomBytes(20).toString('hex') };
  },
  async send(world, a, state) {
    await scepSend(world, a, state);
  },
  async finish(world, _a, b, state) {
    const answers: string[] = [];
    const der = await retrying<Buffer>(answers, async () => {
      const res = await scepSend(world, b, state);
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) return { later: `${res.status} ${body.toString().slice(0, 200)}` };
      const seen = readCertRep(world.dir, body, state.device);
      if (seen.status === '0' && seen.certificates.length) return { done: firstCertificate(seen.certificates[0]) };
      if (seen.status === '3') return { later: 'PENDING' };
      // The first request's intent still pending (not yet swept): the CA says to ask again.
      if (seen.status === '2' && /ask again/.test(seen.failInfoText ?? '')) return { later: `FAILURE ${seen.failInfoText}` };
      throw new Error(`CertRep pkiStatus ${seen.status} failInfo ${seen.failInfo}: ${seen.failInfoText} (after ${answers.join('; ')})`);
    });
    return { der, answers };
  },
};

/** The PKCSReq, built afresh (a new senderNonce and envelope) with the same transactionID, signer and CSR. */
function scepSend(world: DoorWorld, host: Host, state: ScepState): Promise<Response> {
  const message = buildRequest({
    signer: state.device,
    content: envelope(world.dir, state.csr, state.ra),
    messageType: 19,
    transactionId: state.transactionId,
  });
  return fetch(`${host.url}/django_ca/scep?operation=PKIOperation`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-pki-message' },
    body: message,
  });
}

export const DOORS = { REST: rest, ACME: acmeDoor, EST: est, SCEP: scep } as const;
export type DoorName = keyof typeof DOORS;
