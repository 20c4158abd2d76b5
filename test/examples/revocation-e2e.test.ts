/**
 * Revocation as relying parties see it, against the running example host server, with `openssl` as
 * the client throughout: for an EC intermediate (the server's demo CA), an RSA root and an Ed25519
 * root (made with `ca-admin` on the server's data directory, their URLs on the server's address),
 * `openssl ocsp -url` says good, then revoked with the reason right after the API revoke, and unknown
 * for a never-issued serial; the CRL from the certificate's distribution point lists the revoked
 * serial; `openssl verify -crl_check` rejects the revoked leaf and accepts another; the issuer
 * fetched from the CA-Issuers URL completes the chain.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { caAdmin } from '../cli/child';
import { TEST_KEK } from '../cli/helpers';
import { startChildServer, stopChild, type ChildServer } from './child-server';

let dir: string;
let server: ChildServer;
let port: number;
const roots: Record<string, string> = {};

function sh(cmd: string): string {
  const r = spawnSync('bash', ['-c', cmd], { cwd: dir, timeout: 60_000 });
  return `${r.stdout.toString()}${r.stderr.toString()}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revocation-e2e-'));
  port = await freePort();
  const data = path.join(dir, 'data');
  for (const [name, args] of [
    ['RsaRoot', ['--key-type', 'RSA', '--key-size', '2048']],
    ['EdRoot', ['--key-type', 'Ed25519']],
  ] as const) {
    const r = caAdmin(data, ['init_ca', ...args, '--api-enable', '--default-hostname', `localhost:${port}`, name, `CN=${name}`]);
    expect(r.stderr).toBe('');
    roots[name] = r.stdout.trim().replace(/:/g, '');
  }
  server = await startChildServer({ CA_DATA_DIR: data, PORT: String(port), CA_KEY_ENCRYPTION_KEY: TEST_KEK });
}, 120_000);

afterAll(async () => {
  if (server) await stopChild(server.child);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function api(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.apiRoot}${url}`, {
    method,
    headers: {
      Authorization: `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}`,
      'Content-Type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** A key and CSR by openssl, signed through the API; the leaf's PEM file name. */
async function issue(caSerial: string, name: string): Promise<string> {
  sh(
    `openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ${name}.key -out ${name}.csr -subj /CN=${name}.example.com`,
  );
  const order = await api('POST', `/ca/${caSerial}/sign/`, {
    csr: fs.readFileSync(path.join(dir, `${name}.csr`), 'utf8'),
    subject: [{ oid: 'CN', value: `${name}.example.com` }],
  });
  let state = order;
  for (let i = 0; i < 100 && state.status === 'pending'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    state = await api('GET', `/ca/${caSerial}/orders/${String(order.slug)}/`);
  }
  expect(state.status).toBe('issued');
  const cert = await api('GET', `/ca/${caSerial}/certs/${String(state.serial)}/`);
  fs.writeFileSync(path.join(dir, `${name}.pem`), (cert.certificate as { pem: string }).pem);
  return `${name}.pem`;
}

const CASES = [
  ['an EC intermediate (the demo CA)', 'intermediate'],
  ['an RSA root', 'RsaRoot'],
  ['an Ed25519 root', 'EdRoot'],
] as const;

test.each(CASES)(
  '%s: OCSP, CRL, verify -crl_check and AIA chasing with openssl',
  async (_label, which) => {
    const caSerial = which === 'intermediate' ? server.caSerial : roots[which];
    const tag = which.toLowerCase();
    const revoked = await issue(caSerial, `${tag}-revoked`);
    const kept = await issue(caSerial, `${tag}-kept`);

    // The issuer, fetched from the CA-Issuers URL of the leaf, completes the chain to the trust anchor.
    sh(
      `curl -s "$(openssl x509 -in ${revoked} -noout -ext authorityInfoAccess | sed -n 's/.*CA Issuers - URI://p')" | openssl x509 -inform DER -out ${tag}-issuer.pem`,
    );
    const anchor = which === 'intermediate' ? path.join(dir, 'data', 'root.pem') : `${tag}-issuer.pem`;
    const untrusted = which === 'intermediate' ? `-untrusted ${tag}-issuer.pem` : '';
    expect(sh(`openssl verify -CAfile ${anchor} ${untrusted} ${kept}`)).toContain(`${kept}: OK`);
    sh(`cat ${anchor} ${which === 'intermediate' ? `${tag}-issuer.pem` : ''} > ${tag}-chain.pem`);

    const ocsp = (leaf: string) =>
      sh(
        `openssl ocsp -issuer ${tag}-issuer.pem -cert ${leaf} -url "$(openssl x509 -in ${leaf} -noout -ocsp_uri)" -CAfile ${tag}-chain.pem`,
      );
    const before = ocsp(revoked);
    expect(before).toContain('Response verify OK');
    expect(before).toContain(`${revoked}: good`);

    const serial = sh(`openssl x509 -in ${revoked} -noout -serial`).trim().split('=')[1].replace(/^0+/, '');
    await api('POST', `/ca/${caSerial}/certs/${serial}/revoke/`, { reason: 'superseded' });
    const after = ocsp(revoked);
    expect(after).toContain('Response verify OK');
    expect(after).toMatch(new RegExp(`${revoked.replace('.', '\\.')}: revoked[\\s\\S]*Reason: superseded`));
    expect(ocsp(kept)).toContain(`${kept}: good`);
    const unknown = sh(
      `openssl ocsp -issuer ${tag}-issuer.pem -serial 0x7A11C0DE -url "$(openssl x509 -in ${kept} -noout -ocsp_uri)" -CAfile ${tag}-chain.pem`,
    );
    expect(unknown).toContain('0x7A11C0DE: unknown');

    // The CRL at the leaf's distribution point lists it; verify -crl_check rejects it and accepts the other.
    sh(
      `curl -s "$(openssl x509 -in ${revoked} -noout -ext crlDistributionPoints | sed -n 's/.*URI://p')" | openssl crl -inform DER -out ${tag}.crl`,
    );
    expect(sh(`openssl crl -in ${tag}.crl -noout -text`)).toMatch(new RegExp(`Serial Number: 0?${serial}[\\s\\S]*?Superseded`));
    const check = (leaf: string) => sh(`openssl verify -crl_check -CAfile ${anchor} ${untrusted} -CRLfile ${tag}.crl ${leaf}`);
    expect(check(revoked)).toContain('certificate revoked');
    expect(check(kept)).toContain(`${kept}: OK`);
  },
  120_000,
);
