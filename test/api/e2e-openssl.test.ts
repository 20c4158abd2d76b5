/**
 * End to end with openssl as the independent oracle: keys and CSRs from `openssl req` (RSA, EC,
 * Ed25519); find the CA over the API, sign, poll the order, fetch the PEM; `openssl verify` accepts the
 * chain, and `openssl x509 -text` shows the profile's key usages and the CA's CRL/OCSP/issuer URLs.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { API, HOSTNAME, opensslCsr, setupApi, waitForOrder, type ApiFixture, type CsrKeyType } from './fixture';

let f: ApiFixture;
let dir: string;
beforeAll(async () => {
  f = await setupApi();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-'));
});
afterAll(async () => {
  await f.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test.each<[CsrKeyType, string]>([
  ['RSA', 'rsaEncryption'],
  ['EC', 'id-ecPublicKey'],
  ['Ed25519', 'ED25519'],
])('%s: CSR → order → certificate that openssl verifies', async (keyType, keyAlgorithmName) => {
  const auth = f.auth('alice');
  const cas = await request(f.app).get(`${API}/ca/`).set(auth);
  expect(cas.status).toBe(200);
  expect(cas.body).toHaveLength(1);
  const ca = cas.body[0] as { certificate: { serial: string; pem: string } };
  const serial = ca.certificate.serial;

  const cn = `${keyType.toLowerCase()}.example.com`;
  const { csr, keyFile } = opensslCsr(keyType, cn);
  const signed = await request(f.app)
    .post(`${API}/ca/${serial}/sign/`)
    .set(auth)
    .send({
      csr,
      subject: [{ oid: 'CN', value: cn }],
      profile: 'server',
      extensions: [{ type: 'subject_alternative_name', value: [{ type: 'DNS', value: cn }] }],
    });
  expect(signed.status).toBe(200);
  const order = await waitForOrder(f.app, serial, signed.body.slug, auth);
  expect(order.status).toBe('issued');
  const cert = await request(f.app).get(`${API}/ca/${serial}/certs/${order.serial}/`).set(auth);
  expect(cert.status).toBe(200);

  const files = {
    root: path.join(dir, 'root.pem'),
    intermediate: path.join(dir, 'intermediate.pem'),
    leaf: path.join(dir, `${keyType}.pem`),
  };
  fs.writeFileSync(files.root, f.root.certificate.pem);
  fs.writeFileSync(files.intermediate, ca.certificate.pem);
  fs.writeFileSync(files.leaf, cert.body.certificate.pem);

  const verify = execFileSync('openssl', ['verify', '-CAfile', files.root, '-untrusted', files.intermediate, files.leaf], {
    encoding: 'utf8',
  });
  expect(verify.trim()).toBe(`${files.leaf}: OK`);

  // The certificate carries the CSR's key: same public key as the private key openssl made.
  const pubFromKey = execFileSync('openssl', ['pkey', '-in', keyFile, '-pubout'], { encoding: 'utf8' });
  const pubFromCert = execFileSync('openssl', ['x509', '-in', files.leaf, '-noout', '-pubkey'], { encoding: 'utf8' });
  expect(pubFromCert).toBe(pubFromKey);

  const text = execFileSync('openssl', ['x509', '-in', files.leaf, '-noout', '-text'], { encoding: 'utf8' });
  expect(text).toContain(`Public Key Algorithm: ${keyAlgorithmName}`);
  expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment, Key Agreement/);
  expect(text).toMatch(/X509v3 Extended Key Usage:\s+TLS Web Client Authentication, TLS Web Server Authentication/);
  expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
  expect(text).toContain(`DNS:${cn}`);
  const base = `http://${HOSTNAME}/django_ca`;
  expect(text).toContain(`OCSP - URI:${base}/ocsp/${serial}/cert/`);
  // docs/reference/differences.md: an intermediate's end-entity certificates point at the intermediate's own
  // certificate (the original pointed at the parent's, which breaks AIA chasing).
  expect(text).toContain(`CA Issuers - URI:${base}/issuer/${f.ca.serial}.der`);
  expect(text).toContain(`URI:${base}/crl/${serial}/`);
});
