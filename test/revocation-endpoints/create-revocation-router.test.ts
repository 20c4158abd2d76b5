/**
 * `createRevocationRouter` mounted ALONE on a host app — no REST API, no users, no order runner — over
 * a real store with a CA hierarchy (docs/guides/revocation.md): the CA certificate, the CRLs
 * (DER and PEM) and OCSP (POST and GET) answer there, checked by `openssl` as the relying party; a
 * revocation made through the store shows in the next CRL and OCSP answer; nothing under
 * `/{urlPath}api/` is served (the host's 404). Without `keyBackends` the router signs with the default
 * key backend under `CA_KEY_ENCRYPTION_KEY`, wired as `createCaApiRouter` wires it.
 */
import { spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import express from 'express';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import {
  createRevocationRouter,
  defaultKeyBackend,
  defaultProfiles,
  initCa,
  revokeCert,
  signCert,
  type CaRecord,
  type CertificateRecord,
  type RevocationRouter,
  type RevocationRouterOptions,
  type Store,
} from '../../lib';
import { pemEncode } from '../../lib/x509/pem';
import { opensslCsr } from '../api/fixture';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const PUBLIC = '/django_ca';
const KEK = randomBytes(32).toString('base64');

function binary(res: request.Response, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
}

/** A host app with only the revocation router, and the host's own 404 behind it. */
function hostApp(router: RevocationRouter, mountPath = '/'): express.Express {
  const app = express();
  app.use(mountPath, router);
  app.use((req, res) => {
    res.status(404).json({ host: req.originalUrl });
  });
  return app;
}

describe.each(testDatabaseTargets())('createRevocationRouter alone on a host app ($name)', (target) => {
  let db: TestDatabase;
  let store: Store;
  let root: CaRecord;
  let ca: CaRecord;
  let leaf: CertificateRecord;
  let router: RevocationRouter;
  let app: express.Express;
  let dir: string;
  const logged: string[] = [];

  const openssl = (args: string[]): string => {
    const r = spawnSync('openssl', args, { cwd: dir });
    return `${r.stdout.toString()}${r.stderr.toString()}`;
  };

  beforeAll(async () => {
    db = await openTestDatabase(target);
    store = db.store;
    // The CAs' keys are stored under KEK; the router gets only the environment, no key backend.
    const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: KEK }) };
    const base = { store, keyBackends, keyType: 'EC' as const, defaultHostname: 'ca.example.com' };
    root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Alone Root' }], pathLength: 1 });
    ca = await initCa({ ...base, name: 'issuing', subject: [{ oid: 'CN', value: 'Alone Issuing' }], parent: root, expiresDays: 365 });
    const { csr } = opensslCsr('EC', 'leaf.example.com');
    leaf = await signCert({
      store,
      keyBackends,
      profiles: defaultProfiles(),
      ca,
      csr,
      subject: [{ oid: '2.5.4.3', value: 'leaf.example.com' }],
    });

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revocation-alone-'));
    fs.writeFileSync(path.join(dir, 'ca.pem'), pemEncode(ca.der, 'CERTIFICATE'));
    fs.writeFileSync(path.join(dir, 'chain.pem'), pemEncode(ca.der, 'CERTIFICATE') + pemEncode(root.der, 'CERTIFICATE'));
    fs.writeFileSync(path.join(dir, 'leaf.pem'), pemEncode(leaf.der, 'CERTIFICATE'));

    router = createRevocationRouter({ store, env: { CA_KEY_ENCRYPTION_KEY: KEK }, logError: (message) => logged.push(message) });
    app = hostApp(router);
  });
  afterAll(async () => {
    await router?.close();
    await db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Ask about the leaf by OCSP (POST or GET with the request in the path); openssl's verdict on the answer. */
  const askOcsp = async (via: 'POST' | 'GET'): Promise<string> => {
    openssl(['ocsp', '-issuer', 'ca.pem', '-cert', 'leaf.pem', '-no_nonce', '-reqout', 'req.der']);
    const der = fs.readFileSync(path.join(dir, 'req.der'));
    const url = `${PUBLIC}/ocsp/${ca.serial}/cert/`;
    const res =
      via === 'POST'
        ? await request(app).post(url).set('Content-Type', 'application/ocsp-request').send(der).buffer(true).parse(binary)
        : await request(app)
            .get(`${url}${encodeURIComponent(der.toString('base64'))}`)
            .buffer(true)
            .parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/ocsp-response');
    expect(res.headers['cache-control']).toBe('no-cache');
    fs.writeFileSync(path.join(dir, 'resp.der'), res.body as Buffer);
    return openssl(['ocsp', '-respin', 'resp.der', '-issuer', 'ca.pem', '-cert', 'leaf.pem', '-no_nonce', '-CAfile', 'chain.pem']);
  };

  test('the default key backend is wired from CA_KEY_ENCRYPTION_KEY when keyBackends is not given', () => {
    expect(Object.keys(router.options.keyBackends)).toEqual(['default']);
    expect(router.options.keyBackends.default.alias).toBe('default');
    expect(router.options.prefix).toBe('/django_ca/');
    expect(router.options.ocspSigning).toBe('delegate');
  });

  test('issuer/{serial}.der: the CA certificate as DER; an unknown CA is a JSON 404', async () => {
    const res = await request(app).get(`${PUBLIC}/issuer/${ca.serial}.der`).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pkix-cert');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(res.body as Buffer, ca.der)).toBe(0);
    fs.writeFileSync(path.join(dir, 'issuer.der'), res.body as Buffer);
    expect(openssl(['x509', '-inform', 'DER', '-in', 'issuer.der', '-noout', '-subject'])).toContain('Alone Issuing');
    const unknown = await request(app).get(`${PUBLIC}/issuer/ABCDEF.der`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not Found' });
  });

  test('OCSP by POST and by GET: good, in an answer signed by a delegated responder that openssl verifies', async () => {
    const byPost = await askOcsp('POST');
    expect(byPost).toContain('Response verify OK');
    expect(byPost).toContain('leaf.pem: good');
    const byGet = await askOcsp('GET');
    expect(byGet).toContain('Response verify OK');
    expect(byGet).toContain('leaf.pem: good');
  });

  test('CRL as DER and as PEM: signed by the CA (openssl verifies it), conditional requests get a 304', async () => {
    const der = await request(app).get(`${PUBLIC}/crl/${ca.serial}/`).buffer(true).parse(binary);
    expect(der.status).toBe(200);
    expect(der.headers['content-type']).toBe('application/pkix-crl');
    expect(der.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    fs.writeFileSync(path.join(dir, 'crl.der'), der.body as Buffer);
    const text = openssl(['crl', '-inform', 'DER', '-in', 'crl.der', '-noout', '-text', '-CAfile', 'chain.pem', '-verify']);
    expect(text).toContain('verify OK');
    expect(text).toContain('Only User Certificates');
    expect(text).toContain('No Revoked Certificates');

    const pem = await request(app).get(`${PUBLIC}/crl/${ca.serial}/?encoding=PEM`);
    expect(pem.status).toBe(200);
    expect(pem.headers['content-type']).toMatch(/^text\/plain/);
    fs.writeFileSync(path.join(dir, 'crl.pem'), pem.text);
    expect(openssl(['crl', '-in', 'crl.pem', '-noout', '-CAfile', 'chain.pem', '-verify'])).toContain('verify OK');
    const again = await request(app).get(`${PUBLIC}/crl/${ca.serial}/?encoding=PEM`).set('If-None-Match', pem.headers.etag);
    expect(again.status).toBe(304);

    const childCas = await request(app).get(`${PUBLIC}/crl/ca/${root.serial}/?encoding=PEM`);
    fs.writeFileSync(path.join(dir, 'ca-scope.pem'), childCas.text);
    expect(openssl(['crl', '-in', 'ca-scope.pem', '-noout', '-text'])).toContain('Only CA Certificates');
  });

  test('a revocation made through the store is in the next CRL and the next OCSP answers (POST and GET)', async () => {
    await revokeCert(store, leaf, { reason: 'keyCompromise' });
    const der = await request(app).get(`${PUBLIC}/crl/${ca.serial}/`).buffer(true).parse(binary);
    fs.writeFileSync(path.join(dir, 'revoked.der'), der.body as Buffer);
    const text = openssl(['crl', '-inform', 'DER', '-in', 'revoked.der', '-noout', '-text']);
    expect(text).toMatch(new RegExp(`Serial Number: 0?${leaf.serial}[\\s\\S]*?Key Compromise`));
    expect(await askOcsp('POST')).toMatch(/leaf\.pem: revoked[\s\S]*Reason: keyCompromise/);
    expect(await askOcsp('GET')).toMatch(/leaf\.pem: revoked/);
  });

  test('the REST API is not served: everything under /{urlPath}api/ falls through to the host app', async () => {
    for (const url of [`${PUBLIC}/api/`, `${PUBLIC}/api`, `${PUBLIC}/api/ca/`, `${PUBLIC}/api/openapi.json`, `${PUBLIC}/api/docs/`]) {
      const res = await request(app).get(url);
      expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 404, body: { host: url } });
    }
    const sign = await request(app).post(`${PUBLIC}/api/ca/${ca.serial}/sign/`).send({});
    expect(sign.status).toBe(404);
    expect(sign.body).toEqual({ host: `${PUBLIC}/api/ca/${ca.serial}/sign/` });
    // And so are paths beside the endpoints, as with createCaApiRouter.
    expect((await request(app).get(`${PUBLIC}/crl/${ca.serial}`)).body).toEqual({ host: `${PUBLIC}/crl/${ca.serial}` });
  });

  test('methods: a wrong one is a JSON 405 with Allow; HEAD is answered on the GET endpoints', async () => {
    const post = await request(app).post(`${PUBLIC}/crl/${ca.serial}/`);
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');
    expect(post.body).toEqual({ detail: 'Method Not Allowed' });
    const get = await request(app).get(`${PUBLIC}/ocsp/${ca.serial}/cert/`);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const head = await request(app).head(`${PUBLIC}/issuer/${ca.serial}.der`);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/pkix-cert');
  });

  test('urlPath and a host mount path combine; keyBackends given are used as given', async () => {
    const own = createRevocationRouter({ store, urlPath: '', keyBackends: { default: defaultKeyBackend({ keyEncryptionKey: KEK }) } });
    try {
      const res = await request(hostApp(own, '/pki')).get(`/pki/crl/${ca.serial}/?encoding=PEM`);
      expect(res.status).toBe(200);
      fs.writeFileSync(path.join(dir, 'mounted.pem'), res.text);
      expect(openssl(['crl', '-in', 'mounted.pem', '-noout', '-CAfile', 'chain.pem', '-verify'])).toContain('verify OK');
      expect((await request(hostApp(own, '/pki')).get(`/crl/${ca.serial}/`)).body).toEqual({ host: `/crl/${ca.serial}/` });
    } finally {
      await own.close();
      await own.close(); // idempotent
    }
    expect(logged).toEqual([]);
  });
});

describe('createRevocationRouter options', () => {
  const errorOf = (options: unknown): string => {
    try {
      createRevocationRouter(options as RevocationRouterOptions);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('expected createRevocationRouter to throw');
  };
  /** Enough of a store for the checks that come before any use of it. */
  const shapedStore = {
    findCaBySerial: async () => null,
    getCa: async () => null,
    findCertificate: async () => null,
    insertCertificate: async () => undefined,
    listRevoked: async () => [],
    nextCrlNumber: async () => 1n,
    revocationVersion: async () => 0,
    onCaChanged: () => () => undefined,
    onCertificateChanged: () => () => undefined,
  } as unknown as Store;

  test.each([
    ['no options', undefined, 'expected an options object such as { store }'],
    ['no store', {}, 'option `store` is required, e.g. createRevocationRouter({ store: knexStore(db) })'],
    ['a store that is not one', { store: {} }, 'option `store` must implement the Store port'],
    [
      'an option of createCaApiRouter',
      { store: shapedStore, enableRestApi: true },
      'unknown option `enableRestApi`; known options are store, keyBackends, urlPath',
    ],
    ['a urlPath with a leading slash', { store: shapedStore, urlPath: '/pki/' }, "option `urlPath` must not start with '/'"],
    [
      'CA_URL_PATH without its slash',
      { store: shapedStore, env: { CA_URL_PATH: 'pki' } },
      "environment variable CA_URL_PATH must be '' or end with '/'",
    ],
    [
      'an unknown ocspSigning',
      { store: shapedStore, ocspSigning: 'self' },
      "option `ocspSigning` must be 'delegate' or 'ca' (got \"self\")",
    ],
    [
      'a profile that is not an object',
      { store: shapedStore, profiles: { ocsp: 5 } },
      "profile 'ocsp' must be an object, or null to remove it (got 5)",
    ],
    ['a key backend that is not one', { store: shapedStore, keyBackends: { default: {} } }, "'default' must implement the KeyBackend port"],
    ['a logError that is not a function', { store: shapedStore, logError: 'console' }, 'option `logError` must be a function'],
    [
      'no keyBackends and no CA_KEY_ENCRYPTION_KEY',
      { store: shapedStore, env: {} },
      'no key-encryption key for CA private keys: set CA_KEY_ENCRYPTION_KEY',
    ],
  ])('%s is rejected at construction, naming createRevocationRouter', (_label, options, message) => {
    const text = errorOf(options);
    expect(text.startsWith('createRevocationRouter: ')).toBe(true);
    expect(text).toContain(message);
  });

  test('CA_URL_PATH is read when urlPath is absent, as createCaApiRouter reads it', async () => {
    const router = createRevocationRouter({ store: shapedStore, keyBackends: {}, env: { CA_URL_PATH: 'pki/' } });
    expect(router.options.prefix).toBe('/pki/');
    await router.close();
  });
});
