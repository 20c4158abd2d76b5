/**
 * ACME through a CA whose keys are in a SoftHSM2 token (docs/operations/hsm.md): acme-client orders a
 * certificate (http-01) from an intermediate whose key the token generated; openssl verifies the chain
 * up to the root, also in the token.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as acme from 'acme-client';
import { defaultKeyBackend, pkcs11KeyBackend, type Pkcs11KeyBackend } from '../../lib';
import { initCa } from '../../lib/ca/authorities';
import { pemEncode } from '../../lib/x509/pem';
import { issueWithAcmeClient, KEK, startAcmeServer, type AcmeFixture } from '../acme/fixture';
import { openTestDatabase } from '../helpers/database';
import { createSoftHsmToken, describeWithSoftHsm, type SoftHsmToken } from './softhsm';

describeWithSoftHsm('ACME from a CA whose keys are in SoftHSM2', () => {
  let token: SoftHsmToken;
  let hsm: Pkcs11KeyBackend;
  let server: AcmeFixture;
  let dir: string;

  beforeAll(async () => {
    token = await createSoftHsmToken('acme-test');
    hsm = pkcs11KeyBackend({ library: token.library, token: token.label, pin: token.pin });
    const keyBackends = { default: defaultKeyBackend({ keyEncryptionKey: KEK }), hsm };
    const db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
    const base = { store: db.store, keyBackends, keyType: 'EC' as const, keyBackendAlias: 'hsm', defaultHostname: 'ca.example.com' };
    const root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'HSM ACME Root' }], pathLength: 1 });
    let ca = await initCa({ ...base, name: 'issuing', subject: [{ oid: 'CN', value: 'HSM ACME Issuing' }], parent: root, expiresDays: 30 });
    ca = await db.store.updateCa(ca.id, { acmeEnabled: true, acmeRequiresContact: false });
    server = await startAcmeServer({ name: 'pglite', url: 'memory://' }, {}, { db, root, ca, keyBackends });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acme-hsm-'));
  });
  afterAll(async () => {
    await server?.close();
    await server?.db.close();
    hsm?.close();
    token?.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('acme-client gets a certificate signed in the token; openssl verifies the chain', async () => {
    expect(server.ca.keyBackendAlias).toBe('hsm');
    const client = new acme.Client({ directoryUrl: server.directory, accountKey: await acme.crypto.createPrivateEcdsaKey() });
    await client.createAccount({ termsOfServiceAgreed: true });
    const { chain } = await issueWithAcmeClient(client, server, 'hsm.acme.test');
    const certs = chain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
    expect(certs.length).toBeGreaterThanOrEqual(2);
    fs.writeFileSync(path.join(dir, 'leaf.pem'), certs[0] ?? '');
    fs.writeFileSync(path.join(dir, 'untrusted.pem'), certs.slice(1).join(''));
    fs.writeFileSync(path.join(dir, 'root.pem'), pemEncode(server.root.der, 'CERTIFICATE'));
    const r = spawnSync('openssl', ['verify', '-CAfile', 'root.pem', '-untrusted', 'untrusted.pem', 'leaf.pem'], { cwd: dir });
    expect(`${r.stdout.toString()}${r.stderr.toString()}`).toContain('leaf.pem: OK');
  });
});
