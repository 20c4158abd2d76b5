/**
 * SCEP PKIOperation (RFC 8894 §3.3), built as clients build it (test/helpers/scep-request.ts): the RA
 * certificate from GetCACert just before, as clients fetch it; a PKCSReq signed by a self-signed
 * certificate of the CSR's own key, with the endpoint's challenge. SCEP signs with RSA keys only: a
 * request whose key is not RSA goes as a RenewalReq, signed by an RSA certificate the CA issued first
 * to the same names through a PKCSReq (as a client renewing onto a new key does). A refusal is a
 * CertRep FAILURE with failInfo badRequest (2) or badMessageCheck (1); failInfoText is its text.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import request from 'supertest';
import { binary, buildRequest, envelope, readCertRep, type Device } from '../../helpers/scep-request';
import { csrOf, isRsaKey, keyPemOf, type IssuanceRequest } from '../requests';
import { SCEP, SCEP_CHALLENGE, type World } from '../world';
import type { Answer, Door, Outcome } from './outcome';

const PKCS_REQ = 19;
const RENEWAL_REQ = 17;
let counter = 0;

const firstCertificate = (pem: string): string | null =>
  /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(pem)?.[0] ?? null;

function urlOf(world: World, req: IssuanceRequest): string {
  const label = world.cas[req.ca].label;
  return `${SCEP}${label ? `/${label}` : ''}`;
}

/** The RA certificate (PEM), or GetCACert's refusal: a 4xx in plain text, before any message. */
async function raCertificate(world: World, req: IssuanceRequest): Promise<string | Outcome> {
  const res = await request(world.api.app)
    .get(`${urlOf(world, req)}?operation=GetCACert`)
    .buffer(true)
    .parse(binary);
  const text = (res.body as Buffer).toString();
  if (res.status >= 400 && res.status < 500 && /^text\/plain/.test(res.headers['content-type'] ?? '')) {
    return { result: 'refused', how: `GetCACert ${res.status}`, text };
  }
  if (res.status !== 200) return { result: 'unexpected', how: `GetCACert ${res.status}: ${text.slice(0, 200)}` };
  const pem = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: res.body as Buffer }).toString();
  return firstCertificate(pem) ?? { result: 'unexpected', how: 'GetCACert without a certificate' };
}

/** Per world (a device is files in the world's directory), per key. */
const devices = new WeakMap<World, Map<string, Device>>();

/** A device whose certificate is self-signed with `keyPem` (RSA); one per key. */
function device(world: World, keyPem: string): Device {
  let made = devices.get(world);
  if (!made) devices.set(world, (made = new Map()));
  let found = made.get(keyPem);
  if (!found) made.set(keyPem, (found = newDevice(world, keyPem)));
  return found;
}

function newDevice(world: World, keyPem: string): Device {
  const n = ++counter;
  const key = path.join(world.dir, `scep-${n}.key`);
  const cert = path.join(world.dir, `scep-${n}.pem`);
  fs.writeFileSync(key, keyPem);
  execFileSync('openssl', ['req', '-x509', '-key', key, '-subj', `/CN=scep-device-${n}`, '-days', '1', '-out', cert], { stdio: 'pipe' });
  return { key, cert, keyPem, certDer: execFileSync('openssl', ['x509', '-in', cert, '-outform', 'DER']) };
}

/** A device made of a certificate the CA issued (PEM) and its key. */
function issuedDevice(world: World, certPem: string, keyPem: string): Device {
  const n = ++counter;
  const key = path.join(world.dir, `scep-issued-${n}.key`);
  const cert = path.join(world.dir, `scep-issued-${n}.pem`);
  fs.writeFileSync(key, keyPem);
  fs.writeFileSync(cert, certPem);
  return { key, cert, keyPem, certDer: execFileSync('openssl', ['x509', '-in', cert, '-outform', 'DER']) };
}

async function send(world: World, req: IssuanceRequest, message: Buffer, reader: Device): Promise<Outcome> {
  const res = await request(world.api.app)
    .post(`${urlOf(world, req)}?operation=PKIOperation`)
    .set('Content-Type', 'application/octet-stream')
    .send(message)
    .buffer(true)
    .parse(binary);
  if (res.status !== 200 || res.headers['content-type'] !== 'application/x-pki-message') {
    return { result: 'unexpected', how: `${res.status} ${res.headers['content-type']}: ${(res.body as Buffer).toString().slice(0, 200)}` };
  }
  const seen = readCertRep(world.dir, res.body as Buffer, reader);
  if (seen.status === '0' && seen.certificates.length) return { result: 'issued', pem: seen.certificates[0], how: 'SUCCESS' };
  if (seen.status === '2' && (seen.failInfo === '2' || seen.failInfo === '1')) {
    return { result: 'refused', how: `FAILURE failInfo ${seen.failInfo}`, text: seen.failInfoText };
  }
  return { result: 'unexpected', how: `pkiStatus ${seen.status} failInfo ${seen.failInfo}: ${seen.failInfoText}` };
}

export const scep: Door = async (world, req) => {
  const ra = await raCertificate(world, req);
  if (typeof ra !== 'string') return ra;
  if (isRsaKey(req)) {
    const keyPem = keyPemOf(world, req);
    const csr = csrOf(world, req, { keyPem, challenge: SCEP_CHALLENGE });
    const signer = device(world, keyPem);
    return send(world, req, buildRequest({ signer, content: envelope(world.dir, csr.der, ra), messageType: PKCS_REQ }), signer);
  }
  // Not RSA: first an RSA certificate for the same names, then a RenewalReq signed with it.
  const rsaKey = keyPemOf(world, { ...req, key: 'rsa-2048' });
  const first = device(world, rsaKey);
  const firstCsr = csrOf(world, { ...req, key: 'rsa-2048', days: undefined }, { keyPem: rsaKey, challenge: SCEP_CHALLENGE });
  const enrolled = await send(
    world,
    req,
    buildRequest({ signer: first, content: envelope(world.dir, firstCsr.der, ra), messageType: PKCS_REQ }),
    first,
  );
  if (enrolled.result !== 'issued')
    return { result: 'unexpected', how: `the RSA certificate to renew from was not issued: ${enrolled.how}` };
  const renewing = issuedDevice(world, enrolled.pem, rsaKey);
  const csr = csrOf(world, req);
  const renewalRa = await raCertificate(world, req);
  if (typeof renewalRa !== 'string') return { ...renewalRa, prepared: 1 };
  const renewal = buildRequest({ signer: renewing, content: envelope(world.dir, csr.der, renewalRa), messageType: RENEWAL_REQ });
  const answer: Answer = await send(world, req, renewal, renewing);
  return { ...answer, prepared: 1 };
};
