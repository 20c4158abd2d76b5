/**
 * The public revocation endpoints of the router (issuer certificate, CRLs, OCSP), exercised through
 * HTTP with `openssl` as the relying party: a revocation through the API shows in the next CRL and
 * the next OCSP answer; unknown serials are `unknown`; garbage is `malformedRequest`.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { pemEncode } from '../../lib/x509/pem';
import { API, issueThroughApi, opensslCsr, setupApi, type ApiFixture } from './fixture';

let f: ApiFixture;
let dir: string;
const PUBLIC = '/django_ca';

function openssl(args: string[]): string {
  const r = spawnSync('openssl', args, { cwd: dir });
  return `${r.stdout.toString()}${r.stderr.toString()}`;
}

function binary(res: request.Response, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
}

async function leafPem(serial: string): Promise<string> {
  const res = await request(f.app).get(`${API}/ca/${f.ca.serial}/certs/${serial}/`).set(f.auth('alice'));
  return res.body.certificate.pem as string;
}

beforeAll(async () => {
  f = await setupApi();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revocation-endpoints-'));
  fs.writeFileSync(path.join(dir, 'ca.pem'), pemEncode(f.ca.der, 'CERTIFICATE'));
  fs.writeFileSync(path.join(dir, 'chain.pem'), pemEncode(f.ca.der, 'CERTIFICATE') + pemEncode(f.root.der, 'CERTIFICATE'));
});
afterAll(async () => {
  await f.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('issuer/{serial}.der', () => {
  test('the CA certificate as DER, no authentication; unknown CA → JSON 404', async () => {
    const res = await request(f.app).get(`${PUBLIC}/issuer/${f.ca.serial}.der`).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pkix-cert');
    expect(Buffer.compare(res.body as Buffer, f.ca.der)).toBe(0);
    const unknown = await request(f.app).get(`${PUBLIC}/issuer/ABCDEF.der`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not Found' });
  });
});

describe('CRLs', () => {
  test('a revocation through the API is in the very next CRL, with its reason; numbers grow; 304 on the ETag', async () => {
    const { csr } = opensslCsr('EC', 'crl.example.com');
    const serial = await issueThroughApi(f, csr);
    const before = await request(f.app).get(`${PUBLIC}/crl/${f.ca.serial}/?encoding=PEM`);
    expect(before.status).toBe(200);
    expect(before.headers['content-type']).toMatch(/^text\/plain/);
    fs.writeFileSync(path.join(dir, 'before.crl'), before.text);
    const beforeText = openssl(['crl', '-in', 'before.crl', '-noout', '-text', '-CAfile', 'chain.pem', '-verify']);
    expect(beforeText).toContain('verify OK');
    expect(beforeText).toContain('Only User Certificates');
    expect(beforeText).not.toMatch(new RegExp(`Serial Number: 0?${serial}`));

    // Served from the cache while nothing changed: same CRL, and a 304 for its ETag.
    const again = await request(f.app).get(`${PUBLIC}/crl/${f.ca.serial}/?encoding=PEM`);
    expect(again.text).toBe(before.text);
    const notModified = await request(f.app).get(`${PUBLIC}/crl/${f.ca.serial}/?encoding=PEM`).set('If-None-Match', before.headers.etag);
    expect(notModified.status).toBe(304);

    const revoke = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/certs/${serial}/revoke/`)
      .set(f.auth('alice'))
      .send({ reason: 'keyCompromise', compromised: '2026-01-02T03:04:05Z' });
    expect(revoke.status).toBe(200);

    const after = await request(f.app).get(`${PUBLIC}/crl/${f.ca.serial}/`).buffer(true).parse(binary);
    expect(after.headers['content-type']).toBe('application/pkix-crl');
    expect(after.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    fs.writeFileSync(path.join(dir, 'after.crl'), after.body as Buffer);
    const text = openssl(['crl', '-inform', 'DER', '-in', 'after.crl', '-noout', '-text']);
    expect(text).toMatch(new RegExp(`Serial Number: 0?${serial}[\\s\\S]*?Key Compromise[\\s\\S]*?Invalidity Date`));
    const number = (t: string) => Number(/CRL Number:\s*\n\s*(\d+)/.exec(t)?.[1]);
    expect(number(text)).toBeGreaterThan(number(beforeText));

    // openssl verify -crl_check rejects the revoked leaf.
    fs.writeFileSync(path.join(dir, 'leaf.pem'), await leafPem(serial));
    fs.writeFileSync(path.join(dir, 'root-crl.pem'), (await request(f.app).get(`${PUBLIC}/crl/ca/${f.root.serial}/?encoding=PEM`)).text);
    fs.writeFileSync(
      path.join(dir, 'crls.pem'),
      fs.readFileSync(path.join(dir, 'root-crl.pem'), 'utf8') + openssl(['crl', '-inform', 'DER', '-in', 'after.crl']),
    );
    const verify = openssl(['verify', '-crl_check_all', '-CAfile', 'chain.pem', '-CRLfile', 'crls.pem', 'leaf.pem']);
    expect(verify).toMatch(/certificate revoked/);
  });

  test('encoding other than DER/PEM → 400; unknown CA → 404; wrong method → 405', async () => {
    expect((await request(f.app).get(`${PUBLIC}/crl/${f.ca.serial}/?encoding=der`)).status).toBe(400);
    expect((await request(f.app).get(`${PUBLIC}/crl/ABCDEF/`)).status).toBe(404);
    const post = await request(f.app).post(`${PUBLIC}/crl/${f.ca.serial}/`);
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');
  });

  test('the CA-scope CRL lists revoked child CAs', async () => {
    const child = await f.makeCa({ name: 'to-revoke' });
    await f.store.revokeCa(child.id, 'superseded', null, new Date());
    const res = await request(f.app).get(`${PUBLIC}/crl/ca/${f.root.serial}/?encoding=PEM`);
    fs.writeFileSync(path.join(dir, 'ca-scope.crl'), res.text);
    const text = openssl(['crl', '-in', 'ca-scope.crl', '-noout', '-text']);
    expect(text).toContain('Only CA Certificates');
    expect(text).toMatch(new RegExp(`Serial Number: 0?${child.serial}[\\s\\S]*?Superseded`));
  });
});

describe('OCSP', () => {
  let serial: string;
  beforeAll(async () => {
    serial = await issueThroughApi(f, opensslCsr('EC', 'ocsp.example.com').csr);
    fs.writeFileSync(path.join(dir, 'ocsp-leaf.pem'), await leafPem(serial));
  });

  const ask = async (args: string[], via: 'POST' | 'GET' = 'POST'): Promise<string> => {
    openssl(['ocsp', '-issuer', 'ca.pem', ...args, '-reqout', 'req.der']);
    const der = fs.readFileSync(path.join(dir, 'req.der'));
    const res =
      via === 'POST'
        ? await request(f.app)
            .post(`${PUBLIC}/ocsp/${f.ca.serial}/cert/`)
            .set('Content-Type', 'application/ocsp-request')
            .send(der)
            .buffer(true)
            .parse(binary)
        : await request(f.app)
            .get(`${PUBLIC}/ocsp/${f.ca.serial}/cert/${encodeURIComponent(der.toString('base64'))}`)
            .buffer(true)
            .parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/ocsp-response');
    fs.writeFileSync(path.join(dir, 'resp.der'), res.body as Buffer);
    // The nonce echo is checked through a real `openssl ocsp -url` in test/examples; here openssl would
    // compare against a request it makes up itself from -cert/-serial.
    return openssl([
      'ocsp',
      '-respin',
      'resp.der',
      '-issuer',
      'ca.pem',
      ...args.filter((a) => a !== '-no_nonce'),
      '-no_nonce',
      '-CAfile',
      'chain.pem',
    ]);
  };

  test('good, then revoked with the reason right after POST …/revoke/; signed by the delegated responder', async () => {
    const good = await ask(['-cert', 'ocsp-leaf.pem']);
    expect(good).toContain('Response verify OK');
    expect(good).toContain('ocsp-leaf.pem: good');
    const byGet = await ask(['-cert', 'ocsp-leaf.pem', '-no_nonce'], 'GET');
    expect(byGet).toContain('ocsp-leaf.pem: good');

    await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/certs/${serial}/revoke/`)
      .set(f.auth('alice'))
      .send({ reason: 'superseded' })
      .expect(200);
    const revoked = await ask(['-cert', 'ocsp-leaf.pem']);
    expect(revoked).toContain('Response verify OK');
    expect(revoked).toMatch(/ocsp-leaf\.pem: revoked[\s\S]*Reason: superseded/);
    // The nonce-less GET answer kept from before the revocation is not served again.
    expect(await ask(['-cert', 'ocsp-leaf.pem', '-no_nonce'], 'GET')).toMatch(/ocsp-leaf\.pem: revoked/);

    const text = openssl(['ocsp', '-respin', 'resp.der', '-resp_text', '-noverify']);
    expect(text).toContain('OCSP No Check');
    expect(text).toContain('OCSP Signing');
  });

  test('a serial the CA never issued is unknown', async () => {
    expect(await ask(['-serial', '0x1234567890ABCDEF'])).toMatch(/0x1234567890ABCDEF: unknown/);
  });

  test('garbage bodies and paths are malformedRequest (HTTP 200); an unknown CA is unauthorized', async () => {
    const garbage = await request(f.app)
      .post(`${PUBLIC}/ocsp/${f.ca.serial}/cert/`)
      .send(Buffer.from('not ocsp'))
      .buffer(true)
      .parse(binary);
    expect(garbage.status).toBe(200);
    fs.writeFileSync(path.join(dir, 'garbage.der'), garbage.body as Buffer);
    expect(openssl(['ocsp', '-respin', 'garbage.der', '-resp_text', '-noverify'])).toMatch(/malformedrequest/i);
    const badPath = await request(f.app).get(`${PUBLIC}/ocsp/${f.ca.serial}/cert/%%%`).buffer(true).parse(binary);
    fs.writeFileSync(path.join(dir, 'badpath.der'), badPath.body as Buffer);
    expect(openssl(['ocsp', '-respin', 'badpath.der', '-resp_text', '-noverify'])).toMatch(/malformedrequest/i);

    openssl(['ocsp', '-issuer', 'ca.pem', '-serial', '0x01', '-reqout', 'req.der']);
    const other = await request(f.app)
      .post(`${PUBLIC}/ocsp/ABCDEF/cert/`)
      .send(fs.readFileSync(path.join(dir, 'req.der')))
      .buffer(true)
      .parse(binary);
    fs.writeFileSync(path.join(dir, 'other.der'), other.body as Buffer);
    expect(openssl(['ocsp', '-respin', 'other.der', '-resp_text', '-noverify'])).toMatch(/unauthorized/i);
  });
});
