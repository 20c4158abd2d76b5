/**
 * CA keys in a SoftHSM2 token (docs/operations/hsm.md), end to end on a real token and a real store:
 * `ca-admin init_ca --key-backend hsm` makes a root and an intermediate whose keys the token generated;
 * the REST API issues through the intermediate; openssl verifies the chain, the CRL and the OCSP
 * answer; `pkcs11-tool --list-objects` (OpenSC, an independent PKCS#11 client) shows the keys private,
 * sensitive and never extractable; the database files hold references, no key and no PIN; a restart
 * finds the keys again; a token reset is survived, a token that disappears fails orders with a reason.
 * SCEP through the EC root: its RSA RA key is made in the token and decrypts and signs there; a
 * PKCSReq enrols through it, and a renewed RA key is made in the token too.
 */
import { spawnSync } from 'child_process';
import express from 'express';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { createCaApiRouter, defaultKeyBackend, pkcs11KeyBackend, type CaApiRouter, type KeyBackend, type Store } from '../../lib';
import { inProcessOrderRunner } from '../../lib/ca/order-runner/in-process';
import { pemEncode } from '../../lib/x509/pem';
import { ScepRas } from '../../lib/scep/ra';
import { DEFAULT_EXPIRES_MS } from '../../lib/ca/profiles';
import { effectiveProfiles } from '../../lib/http/profile-options';
import { expectSuccess, run } from '../clients/harness';
import { buildRequest, csrOf, envelope, expectRaCertificate, makeDevice, readCertRep } from '../helpers/scep-request';
import { API, opensslCsr, PASSWORD } from '../api/fixture';
import { cliRunner, TEST_KEK } from '../cli/helpers';
import { TABLES } from '../../adapters/store/knex/tables';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { authHeader, hashPassword } from '../helpers/http';
import { openLibrary, closeLibrary } from '../../adapters/keys/pkcs11/library';
import { createSoftHsmToken, describeWithSoftHsm, listObjects, type SoftHsmToken } from './softhsm';

const PUBLIC = '/django_ca';
const SCEP_CHALLENGE = 'hsm-scep-secret';
/** strongSwan's `pki` (CI installs it); without it here, the test that runs it says so and skips. */
const HAS_PKI = spawnSync('pki', ['--help']).error === undefined;

function binary(res: request.Response, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
}

/** Every file under `dir`, concatenated (the database's files, WAL included). */
function filesOf(dir: string): Buffer {
  const parts: Buffer[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(fs.readFileSync(path.join(entry.parentPath, entry.name)));
  }
  return Buffer.concat(parts);
}

describeWithSoftHsm('CA keys in a SoftHSM2 token', () => {
  describe.each(testDatabaseTargets())('on $name', (target) => {
    let token: SoftHsmToken;
    let dir: string;
    let dbDir: string | null = null;
    let db: TestDatabase;
    let store: Store;
    let env: Record<string, string>;
    let cli: ReturnType<typeof cliRunner>;
    let hsm: ReturnType<typeof pkcs11KeyBackend>;
    let router: CaApiRouter;
    let app: express.Express;
    const logged: string[] = [];
    const alice = authHeader('alice', PASSWORD);

    const openssl = (args: string[]) => {
      const r = spawnSync('openssl', args, { cwd: dir });
      return `${r.stdout.toString()}${r.stderr.toString()}`;
    };

    /** The router as a host builds it: the default backend and the HSM's, the runner batching (signInRequest false). */
    function start(): void {
      hsm = pkcs11KeyBackend({ library: token.library, token: token.label, pin: token.pin });
      const keyBackends: Record<string, KeyBackend> = { default: defaultKeyBackend({ keyEncryptionKey: TEST_KEK }), hsm };
      const orderRunner = inProcessOrderRunner({ store, keyBackends, pollIntervalMs: 20, logError: (m) => logged.push(m) });
      router = createCaApiRouter({
        enableRestApi: true,
        store,
        keyBackends,
        orderRunner,
        signInRequest: false,
        // The EC root (its OCSP key backend: default) enrols SCEP devices through its RSA RA.
        scep: { enabled: true, ca: 'hsm-root', challenge: SCEP_CHALLENGE },
        logError: (m) => logged.push(m),
      });
      app = express().use(router);
    }
    async function stop(): Promise<void> {
      await router.close();
      hsm.close();
    }

    async function ca(name: string) {
      const found = (await store.listCas()).find((c) => c.name === name);
      if (!found) throw new Error(`no CA ${name}`);
      return found;
    }

    /** Sign a fresh CSR through the REST API; the order as it ends. */
    async function signThroughApi(cn: string): Promise<{ status: string; serial: string | null; error: string | null }> {
      const issuing = await ca('hsm-issuing');
      const { csr } = opensslCsr('EC', cn);
      const res = await request(app)
        .post(`${API}/ca/${issuing.serial}/sign/`)
        .set(alice)
        .send({ csr, subject: [{ oid: 'CN', value: cn }] });
      expect(res.status).toBe(200);
      for (let i = 0; i < 400; i++) {
        const order = await request(app).get(`${API}/ca/${issuing.serial}/orders/${res.body.slug}/`).set(alice);
        if (order.body.status !== 'pending') return order.body;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('order still pending');
    }

    /** POST the OCSP request in `requestFile` to the responder of `serial` (`cert` or `ca`); the answer is saved in `answerFile`. */
    async function postOcsp(serial: string, scope: 'cert' | 'ca', requestFile: string, answerFile: string): Promise<request.Response> {
      const answer = await request(app)
        .post(`${PUBLIC}/ocsp/${serial}/${scope}/`)
        .set('Content-Type', 'application/ocsp-request')
        .send(fs.readFileSync(path.join(dir, requestFile)))
        .buffer(true)
        .parse(binary);
      fs.writeFileSync(path.join(dir, answerFile), answer.body as Buffer);
      return answer;
    }

    /** OCSP about the leaf (no nonce: the responder may keep the answer); openssl's verdict on the answer. */
    async function askLeafOcsp(): Promise<string> {
      const issuing = await ca('hsm-issuing');
      await postOcsp(issuing.serial, 'cert', 'req.der', 'resp.der');
      return openssl(['ocsp', '-respin', 'resp.der', '-issuer', 'issuing.pem', '-cert', 'leaf.pem', '-no_nonce', '-CAfile', 'chain.pem']);
    }

    beforeAll(async () => {
      token = await createSoftHsmToken(`ca-${target.name}`);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hsm-ca-'));
      // PGlite in a directory, so that the test can read the database's files.
      if (target.name === 'pglite') dbDir = path.join(dir, 'db');
      db = await openTestDatabase(dbDir ? { ...target, url: dbDir } : target);
      store = db.store;
      env = { CA_HSM_LIBRARY_PATH: token.library, CA_HSM_TOKEN: token.label, CA_HSM_USER_PIN: token.pin };
      cli = cliRunner(store, env);
      await store.createUser('alice', hashPassword(PASSWORD), [
        'sign_certificate',
        'view_certificateauthority',
        'view_certificate',
        'revoke_certificate',
      ]);
    });
    afterAll(async () => {
      await router?.close().catch(() => undefined);
      hsm?.close();
      await db?.close();
      token?.cleanup();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test('init_ca --key-backend hsm: a root (EC P-256) and an intermediate (RSA-2048), keys made in the token', async () => {
      const root = await cli([
        'init_ca',
        '--key-backend',
        'hsm',
        '--hsm-key-label',
        'root-key',
        '--key-type',
        'EC',
        '--elliptic-curve',
        'secp256r1',
        '--path-length',
        '1',
        '--no-default-hostname',
        'hsm-root',
        'CN=HSM Root',
      ]);
      expect(root.stderr).toBe('');
      expect(root.code).toBe(0);
      const issuing = await cli([
        'init_ca',
        '--key-backend',
        'hsm',
        '--hsm-key-label',
        'issuing-key',
        '--key-type',
        'RSA',
        '--key-size',
        '2048',
        '--parent',
        'hsm-root',
        // Its OCSP responder keys in the token too; the root's stay in the default backend.
        '--ocsp-key-backend',
        'hsm',
        '--api-enable',
        'hsm-issuing',
        'CN=HSM Issuing',
      ]);
      expect(issuing.code).toBe(0);
      for (const [name, label, type] of [
        ['hsm-root', 'root-key', 'EC'],
        ['hsm-issuing', 'issuing-key', 'RSA'],
      ]) {
        const record = await ca(name);
        expect(record.keyBackendAlias).toBe('hsm');
        expect(Object.keys(record.keyBackendOptions ?? {}).sort()).toEqual(['key_id', 'key_label', 'key_type']);
        expect(record.keyBackendOptions).toMatchObject({ key_label: label, key_type: type });
      }
      fs.writeFileSync(path.join(dir, 'root.pem'), pemEncode((await ca('hsm-root')).der, 'CERTIFICATE'));
      fs.writeFileSync(path.join(dir, 'issuing.pem'), pemEncode((await ca('hsm-issuing')).der, 'CERTIFICATE'));
      expect(openssl(['verify', '-CAfile', 'root.pem', 'issuing.pem'])).toContain('issuing.pem: OK');

      // OpenSC's view of the token: both private keys sensitive, always sensitive, never extractable, made there.
      const objects = listObjects(token);
      for (const label of ['root-key', 'issuing-key']) {
        const block = objects.split(/\n(?=\S)/).find((b) => b.startsWith('Private Key Object') && b.includes(`label:      ${label}`));
        expect(block).toBeDefined();
        expect(block).toMatch(/Access:\s+sensitive, always sensitive, never extractable, local/);
        expect(block).toMatch(/Usage:\s+sign\n/);
      }
    });

    test('view_ca shows the backend and the key, never the PIN', async () => {
      const shown = await cli(['view_ca', 'hsm-issuing']);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/Key storage: hsm \(RSA key labelled "issuing-key", id [0-9a-f]{32}\)/);
      expect(shown.stdout).not.toContain(token.pin);
    });

    test('the REST API issues through the HSM intermediate; openssl verifies the chain', async () => {
      start();
      const order = await signThroughApi('leaf.example.com');
      expect(order).toMatchObject({ status: 'issued', error: null });
      const issuing = await ca('hsm-issuing');
      const cert = await request(app).get(`${API}/ca/${issuing.serial}/certs/${order.serial}/`).set(alice);
      fs.writeFileSync(path.join(dir, 'leaf.pem'), cert.body.certificate.pem);
      expect(openssl(['verify', '-CAfile', 'root.pem', '-untrusted', 'issuing.pem', 'leaf.pem'])).toContain('leaf.pem: OK');
    });

    test('a CRL and an OCSP answer signed with HSM keys verify with openssl', async () => {
      const issuing = await ca('hsm-issuing');
      const leafSerial = openssl(['x509', '-in', 'leaf.pem', '-noout', '-serial']).trim().split('=')[1];
      const revoked = await request(app)
        .post(`${API}/ca/${issuing.serial}/certs/${leafSerial}/revoke/`)
        .set(alice)
        .send({ reason: 'key_compromise' });
      expect(revoked.status).toBe(200);
      fs.writeFileSync(
        path.join(dir, 'chain.pem'),
        fs.readFileSync(path.join(dir, 'issuing.pem'), 'utf8') + fs.readFileSync(path.join(dir, 'root.pem'), 'utf8'),
      );
      const crl = await request(app).get(`${PUBLIC}/crl/${issuing.serial}/`).buffer(true).parse(binary);
      expect(crl.status).toBe(200);
      fs.writeFileSync(path.join(dir, 'crl.der'), crl.body as Buffer);
      const crlText = openssl(['crl', '-inform', 'DER', '-in', 'crl.der', '-noout', '-text', '-CAfile', 'chain.pem', '-verify']);
      expect(crlText).toContain('verify OK');
      expect(crlText).toContain(leafSerial.replace(/^0+/, ''));

      openssl(['ocsp', '-issuer', 'issuing.pem', '-cert', 'leaf.pem', '-no_nonce', '-reqout', 'req.der']);
      expect((await postOcsp(issuing.serial, 'cert', 'req.der', 'resp.der')).status).toBe(200);
      const verdict = openssl([
        'ocsp',
        '-respin',
        'resp.der',
        '-issuer',
        'issuing.pem',
        '-cert',
        'leaf.pem',
        '-no_nonce',
        '-CAfile',
        'chain.pem',
      ]);
      expect(verdict).toContain('Response verify OK');
      expect(verdict).toContain('leaf.pem: revoked');
      // The delegated responder's key was made in the token too.
      expect(listObjects(token)).toMatch(/Private Key Object; RSA[\s\S]*?label:\s+express-ca-[0-9a-f]{32}/);
    });

    test('the database holds references to the keys, no key and no PIN', async () => {
      const rows = JSON.stringify(await db.knex(TABLES.cas).select('*'));
      expect(rows).toContain('issuing-key');
      expect(rows).not.toContain(token.pin);
      expect(rows).not.toMatch(/privateKey|PRIVATE KEY/);
      if (dbDir) {
        await db.knex.raw('CHECKPOINT');
        const files = filesOf(dbDir);
        expect(files.includes('issuing-key')).toBe(true); // the search sees the rows: its misses mean something
        expect(files.includes(token.pin)).toBe(false);
        expect(files.includes('privateKey')).toBe(false);
      }
      expect(logged.join('\n')).not.toContain(token.pin);
    });

    test('--ocsp-key-backend default (the root): its responder key is made in the default backend, encrypted, and the answer verifies', async () => {
      const before = (listObjects(token).match(/^Private Key Object/gm) ?? []).length;
      const root = await ca('hsm-root');
      openssl(['ocsp', '-issuer', 'root.pem', '-cert', 'issuing.pem', '-no_nonce', '-reqout', 'root-req.der']);
      const answer = await postOcsp(root.serial, 'ca', 'root-req.der', 'root-resp.der');
      expect(answer.status).toBe(200);
      const verdict = openssl([
        'ocsp',
        '-respin',
        'root-resp.der',
        '-issuer',
        'root.pem',
        '-cert',
        'issuing.pem',
        '-no_nonce',
        '-CAfile',
        'root.pem',
      ]);
      expect(verdict).toContain('Response verify OK');
      expect(verdict).toContain('issuing.pem: good');
      const row = (await db
        .knex(TABLES.cas)
        .select('ocsp_key_backend_alias', 'ocsp_key_backend_options')
        .where({ id: root.id })
        .first()) as {
        ocsp_key_backend_alias: string;
        ocsp_key_backend_options: unknown;
      };
      expect(row.ocsp_key_backend_alias).toBe('default');
      const stored = JSON.stringify(row.ocsp_key_backend_options);
      expect(stored).toContain('privateKey'); // the default backend's envelope, encrypted under the KEK
      expect(stored).not.toContain('PRIVATE KEY');
      expect((listObjects(token).match(/^Private Key Object/gm) ?? []).length).toBe(before);
    });

    /** The certificates of SCEP's GetCACert (the RA first), PEM. */
    async function scepCaCerts(): Promise<string[]> {
      const res = await request(app).get(`${PUBLIC}/scep?operation=GetCACert`).buffer(true).parse(binary);
      expect(res.status).toBe(200);
      fs.writeFileSync(path.join(dir, 'getcacert.der'), res.body as Buffer);
      return openssl(['pkcs7', '-inform', 'DER', '-in', 'getcacert.der', '-print_certs']).match(
        /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g,
      )!;
    }

    /** A PKCSReq for `cn` enveloped to `raPem`, with `envelopeBytes` changing the envelope first; openssl's reading of the CertRep. */
    async function scepEnrol(cn: string, raPem: string, envelopeBytes: (sealed: Buffer) => Buffer = (x) => x) {
      const device = makeDevice(dir, cn.split('.')[0]);
      const content = envelopeBytes(envelope(dir, csrOf(dir, device.key, cn, SCEP_CHALLENGE), raPem));
      const res = await request(app)
        .post(`${PUBLIC}/scep?operation=PKIOperation`)
        .set('Content-Type', 'application/octet-stream')
        .send(buildRequest({ signer: device, content, messageType: 19 }))
        .buffer(true)
        .parse(binary);
      expect(res.status).toBe(200);
      return readCertRep(dir, res.body as Buffer, device);
    }

    /** The token's object block (pkcs11-tool) of the private key with CKA_ID `id`. */
    const privateKeyObject = (id: string) =>
      listObjects(token)
        .split(/\n(?=\S)/)
        .find((b) => b.startsWith('Private Key Object') && b.includes(`ID:         ${id}`));

    /** The RA key's public key as the token holds it (pkcs11-tool reads the public object by id), PEM. */
    function tokenPublicKey(id: string): string {
      const der = path.join(dir, `pub-${id}.der`);
      spawnSync(
        'pkcs11-tool',
        [
          '--module',
          token.library,
          '--token-label',
          token.label,
          '--login',
          '--pin',
          token.pin,
          '--read-object',
          '--type',
          'pubkey',
          '--id',
          id,
          '-o',
          der,
        ],
        {
          env: token.env,
        },
      );
      return openssl(['pkey', '-pubin', '-inform', 'DER', '-in', der]);
    }

    async function raRecord(caName: string) {
      const root = await ca(caName);
      return (await db.knex('ca_api_delegate_keys').where({ ca_id: root.id, purpose: 'scep_ra' }).first()) as {
        key_backend_alias: string;
        key_backend_options: unknown;
      };
    }

    test('SCEP through the EC root whose key is in the token: its RA key is made in the token (not the database), decrypts and signs there; a PKCSReq enrols', async () => {
      const [ra, root] = await scepCaCerts();
      fs.writeFileSync(path.join(dir, 'ra.pem'), ra);
      const raText = openssl(['x509', '-in', 'ra.pem', '-noout', '-text']);
      expectRaCertificate(raText);
      expect(raText).toMatch(/Issuer: CN ?= ?HSM Root/);
      expect(root).toBe(fs.readFileSync(path.join(dir, 'root.pem'), 'utf8'));

      // The record points into the token (the root's OCSP key backend is `default`: the RA follows the CA key).
      const record = await raRecord('hsm-root');
      expect(record.key_backend_alias).toBe('hsm');
      const options = JSON.parse(JSON.stringify(record.key_backend_options)) as Record<string, string>;
      expect(Object.keys(options).sort()).toEqual(['key_id', 'key_label', 'key_type']);
      expect(options).toMatchObject({ key_label: 'hsm-root SCEP RA', key_type: 'RSA' });
      // OpenSC's view: an RSA private key there, sensitive and never extractable, that decrypts and signs.
      const object = privateKeyObject(options.key_id);
      expect(object).toMatch(/^Private Key Object; RSA/);
      expect(object).toContain('label:      hsm-root SCEP RA');
      expect(object).toMatch(/Access:\s+sensitive, always sensitive, never extractable, local/);
      expect(object).toMatch(/Usage:\s+decrypt, sign\n/);
      expect(tokenPublicKey(options.key_id)).toBe(openssl(['x509', '-in', 'ra.pem', '-noout', '-pubkey']));

      // A device enrols: the token opens the request's key block and signs the CertRep; openssl verifies both ends.
      const seen = await scepEnrol('scep1.example.org', ra);
      expect(seen).toMatchObject({ status: '0', failInfo: null });
      fs.writeFileSync(path.join(dir, 'scep1.pem'), seen.certificates[0]);
      expect(openssl(['verify', '-CAfile', 'root.pem', 'scep1.pem'])).toContain('scep1.pem: OK');
    });

    (HAS_PKI || process.env.CI ? test : test.skip)(
      'strongSwan pki --scepca and --scep (AES/SHA-256) enrol through the RA in the token',
      async () => {
        const server = http.createServer(app);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        try {
          const url = `http://127.0.0.1:${(server.address() as { port: number }).port}${PUBLIC}/scep`;
          // Asynchronously: the server answering pki is this process.
          const sh = (cmd: string) => run('bash', ['-c', cmd], { cwd: dir, timeoutMs: 60_000 });
          expectSuccess('pki --scepca', await sh(`pki --scepca --url ${url} --caout pki-ca.pem --outform pem`));
          expectRaCertificate(openssl(['x509', '-in', 'pki-ca-ra.pem', '-noout', '-text']));
          expectSuccess('pki --gen', await sh('pki --gen --type rsa --size 2048 --outform pem > pki-dev.key'));
          const enrolled = await sh(
            `pki --scep --url ${url} --in pki-dev.key --dn "CN=pki-dev.example.org" --san pki-dev.example.org --password ${SCEP_CHALLENGE} ` +
              '--cacert-enc pki-ca-ra.pem --cacert-sig pki-ca-ra.pem --cacert pki-ca.pem --outform pem > pki-dev.pem',
          );
          expectSuccess('pki --scep', enrolled);
          expect(openssl(['verify', '-CAfile', 'root.pem', 'pki-dev.pem'])).toContain('pki-dev.pem: OK');
        } finally {
          await new Promise((resolve) => server.close(resolve));
        }
      },
      90_000,
    );

    test('a key block the token refuses (not below the modulus) and one with a wrong padding: the same badMessageCheck, nothing issued; the next request enrols', async () => {
      const ra = (await scepCaCerts())[0];
      const keyBlock = (fill: number) => (sealed: Buffer) => {
        const at = sealed.indexOf(Buffer.from([0x04, 0x82, 0x01, 0x00])); // encryptedKey, 256 octets
        expect(at).toBeGreaterThan(0);
        const broken = Buffer.from(sealed);
        broken.fill(fill, at + 4, at + 4 + 256);
        return broken;
      };
      const before = (await db.knex(TABLES.certificates).count({ n: '*' }))[0].n;
      const refused = await scepEnrol('scep2.example.org', ra, keyBlock(0xff)); // ≥ n: CKR_ENCRYPTED_DATA_INVALID
      const unpadded = await scepEnrol('scep3.example.org', ra, keyBlock(0x11)); // < n: no PKCS#1 padding
      for (const seen of [refused, unpadded])
        expect(seen).toMatchObject({ status: '2', failInfo: '1', failInfoText: null, certificates: [] });
      const strip = ({ transactionId: _t, recipientNonce: _n, ...rest }: Awaited<ReturnType<typeof scepEnrol>>) => rest;
      expect(strip(refused)).toEqual(strip(unpadded));
      expect((await db.knex(TABLES.certificates).count({ n: '*' }))[0].n).toBe(before);
      expect(await scepEnrol('scep4.example.org', ra)).toMatchObject({ status: '0' });
    });

    test('the RA renewed: a new key pair in the token, certified; after a restart GetCACert hands it out and devices enrol through it', async () => {
      const old = JSON.parse(JSON.stringify((await raRecord('hsm-root')).key_backend_options)) as Record<string, string>;
      const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: TEST_KEK }), hsm };
      // Renewal is due when the certificate expires within renewBeforeMs (a year and more makes it due
      // now; at most half the validity, hence a long one) and a new one would end later (within the CA's ten years).
      const ras = new ScepRas(store as ConstructorParameters<typeof ScepRas>[0], keyBackends, effectiveProfiles({}, DEFAULT_EXPIRES_MS), {
        renewBeforeMs: 400 * 86_400_000,
        validityMs: 900 * 86_400_000,
      });
      const renewed = await ras.forCa(await ca('hsm-root'));
      const record = JSON.parse(JSON.stringify((await raRecord('hsm-root')).key_backend_options)) as Record<string, string>;
      expect(record.key_id).not.toBe(old.key_id);
      expect(privateKeyObject(record.key_id)).toMatch(/Usage:\s+decrypt, sign\n/);
      expect(privateKeyObject(old.key_id)).toBeDefined(); // the old key stays until the operator removes it
      await stop();
      start();
      const [ra] = await scepCaCerts();
      expect(ra).toBe(`${pemEncode(renewed.certificateDer, 'CERTIFICATE').replace(/\r/g, '')}`.replace(/\n?$/, '\n'));
      expect(await scepEnrol('scep5.example.org', ra)).toMatchObject({ status: '0' });
    });

    test('a restart finds the keys again; a token reset (sessions closed, logged out) is survived', async () => {
      await stop();
      start();
      expect(await signThroughApi('after-restart.example.com')).toMatchObject({ status: 'issued' });
      // Another application closes every session of the token: the backend logs in again and signs.
      const { module } = openLibrary(token.library);
      for (const slot of module.C_GetSlotList(true)) module.C_CloseAllSessions(slot);
      closeLibrary(token.library);
      expect(await signThroughApi('after-reset.example.com')).toMatchObject({ status: 'issued' });
      expect(await askLeafOcsp()).toContain('leaf.pem: revoked'); // signed now, kept for a minute
    });

    test('a wrong PIN and a missing token are clear start-up errors that do not repeat the PIN', async () => {
      expect(() => pkcs11KeyBackend({ library: token.library, token: token.label, pin: 'wrong-pin-1234' })).toThrow(
        `pkcs11KeyBackend: hsm: token "${token.label}": the PIN is incorrect`,
      );
      expect(() => pkcs11KeyBackend({ library: token.library, token: 'no-such-token', pin: token.pin })).toThrow(
        `pkcs11KeyBackend: hsm: no token labelled "no-such-token" in ${token.library} (tokens present: "${token.label}")`,
      );
      const wrong = await cliRunner(store, { ...env, CA_HSM_USER_PIN: 'wrong-pin-1234' })(['init_ca', '--key-backend', 'hsm', 'x', 'CN=x']);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('the PIN is incorrect');
      expect(wrong.stderr).not.toContain('wrong-pin-1234');
    });

    test('a token that disappears: orders fail with the reason, the CRL answers 503, OCSP "try later"; the process goes on', async () => {
      const issuing = await ca('hsm-issuing');
      token.remove();
      const order = await signThroughApi('gone.example.com');
      expect(order.status).toBe('failed');
      expect(order.error).toMatch(/The HSM is unavailable: hsm: token "ca-[a-z]+"/);
      // A CRL not made before (the CRL of the CA's child CAs) needs the key: 503, with Retry-After.
      const crl = await request(app).get(`${PUBLIC}/crl/ca/${issuing.serial}/`);
      expect(crl.status).toBe(503);
      expect(crl.headers['retry-after']).toBeDefined();
      expect(crl.body.detail).toMatch(/The HSM is unavailable/);
      openssl(['ocsp', '-issuer', 'issuing.pem', '-serial', '0x1234', '-reqout', 'req2.der']);
      const answer = await postOcsp(issuing.serial, 'cert', 'req2.der', 'resp2.der');
      expect(answer.status).toBe(200);
      expect(openssl(['ocsp', '-respin', 'resp2.der', '-resp_text', '-noverify'])).toMatch(/Responder Error: trylater \(3\)/);
      // What the responder keeps it still serves: the leaf's answer, signed before the token went.
      const kept = await askLeafOcsp();
      expect(kept).toContain('Response verify OK');
      expect(kept).toContain('leaf.pem: revoked');
      expect(logged.join('\n')).not.toContain(token.pin);
    });
  });
});
