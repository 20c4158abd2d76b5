/** EST simpleenroll (RFC 7030 §4.2.1): the CSR, base64, with HTTP Basic; a refusal is a 400 in plain text. */
import { execFileSync } from 'child_process';
import request from 'supertest';
import { csrOf } from '../requests';
import { EST } from '../world';
import type { Door } from './outcome';

export const est: Door = async (world, req) => {
  const csr = csrOf(world, req);
  const label = world.cas[req.ca].label;
  const res = await request(world.api.app)
    .post(`${EST}${label ? `/${label}` : ''}/simpleenroll`)
    .set(world.auth)
    .set('Content-Type', 'application/pkcs10')
    .send(csr.der.toString('base64'));
  if (res.status >= 400 && res.status < 500) {
    const type = res.headers['content-type'] ?? '';
    if (!/^text\/plain/.test(type)) return { result: 'unexpected', how: `${res.status} as ${type}` };
    return { result: 'refused', how: String(res.status), text: res.text };
  }
  if (res.status !== 200) return { result: 'unexpected', how: `${res.status} ${res.text.slice(0, 200)}` };
  const pem = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: Buffer.from(res.text, 'base64') }).toString();
  const leaf = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(pem);
  return leaf ? { result: 'issued', pem: leaf[0], how: '200' } : { result: 'unexpected', how: 'no certificate in the answer' };
};
