/**
 * The PKCS#11 key backend on a SoftHSM2 token, key type by key type: every signature it makes is
 * checked by openssl with the public key the backend reported; imported keys land in the token as
 * sensitive, non-extractable objects (pkcs11-tool's view); what the token or the backend cannot do is a
 * clear error; no message ever carries the PIN; a pool of two sessions serves many signatures at once;
 * without the optional pkcs11js the backend is an OptionsError that says what to install.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pkcs11KeyBackend, type Pkcs11KeyBackend } from '../../adapters/keys/pkcs11';
import { hasKeyDecryption } from '../../lib/ports';
import type { SignatureOptions } from '../../lib/x509/signer';
import type { KeySpec } from '../../lib/x509/types';
import { cliRunner } from '../cli/helpers';
import { openTestDatabase, type TestDatabase } from '../helpers/database';
import { createSoftHsmToken, describeWithSoftHsm, listObjects, type SoftHsmToken } from './softhsm';
import { CA_EXTENSIONS, selfSignedP256 } from '../helpers/openssl-args';

/** openssl's verdict on `signature` over `data` (pure EdDSA when hash is null; PSS when asked). */
function opensslVerifies(spki: Buffer, data: Buffer, signature: Buffer, options: SignatureOptions): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hsm-verify-'));
  try {
    fs.writeFileSync(path.join(dir, 'pub.der'), spki);
    fs.writeFileSync(path.join(dir, 'data'), data);
    fs.writeFileSync(path.join(dir, 'sig'), signature);
    const args =
      options.hash === null
        ? ['pkeyutl', '-verify', '-pubin', '-keyform', 'DER', '-inkey', 'pub.der', '-rawin', '-in', 'data', '-sigfile', 'sig']
        : [
            'dgst',
            `-${options.hash.toLowerCase().replace('sha-', 'sha').replace('/', '-')}`,
            '-keyform',
            'DER',
            '-verify',
            'pub.der',
            ...(options.padding === 'pss' ? ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:digest'] : []),
            '-signature',
            'sig',
            'data',
          ];
    return spawnSync('openssl', args, { cwd: dir }).status === 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const CASES: [string, KeySpec, SignatureOptions[]][] = [
  [
    'RSA-2048',
    { keyType: 'RSA', keySize: 2048 },
    [{ hash: 'SHA-256' }, { hash: 'SHA-512' }, { hash: 'SHA-256', padding: 'pss' }, { hash: 'SHA-384', padding: 'pss' }],
  ],
  ['EC P-256', { keyType: 'EC', curve: 'secp256r1' }, [{ hash: 'SHA-256' }, { hash: 'SHA3/256' }]],
  ['EC P-384', { keyType: 'EC', curve: 'secp384r1' }, [{ hash: 'SHA-384' }]],
  ['EC P-521', { keyType: 'EC', curve: 'secp521r1' }, [{ hash: 'SHA-512' }]],
  ['Ed25519', { keyType: 'Ed25519' }, [{ hash: null }]],
  ['Ed448', { keyType: 'Ed448' }, [{ hash: null }]],
];

describeWithSoftHsm('pkcs11KeyBackend on SoftHSM2', () => {
  let token: SoftHsmToken;
  let hsm: Pkcs11KeyBackend;
  let db: TestDatabase;
  let cli: ReturnType<typeof cliRunner>;
  const messages: string[] = [];
  const data = crypto.randomBytes(700);

  /** `fn`'s error, its message kept for the PIN check at the end. */
  async function failure(fn: () => Promise<unknown>): Promise<Error> {
    try {
      await fn();
    } catch (e) {
      messages.push((e as Error).message);
      return e as Error;
    }
    throw new Error('expected a failure');
  }

  beforeAll(async () => {
    token = await createSoftHsmToken('backend-test');
    hsm = pkcs11KeyBackend({ library: token.library, token: token.label, pin: token.pin, sessions: 2 });
    // The CLI on a database of its own, with the HSM backend from the environment (on the same token).
    db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
    cli = cliRunner(db.store, { CA_HSM_LIBRARY_PATH: token.library, CA_HSM_TOKEN: token.label, CA_HSM_USER_PIN: token.pin });
  });
  afterAll(async () => {
    hsm?.close();
    await db?.close();
    token?.cleanup();
  });

  test.each(CASES)('%s: generated in the token; every signature verifies with openssl', async (_name, spec, signatures) => {
    const stored = await hsm.createKey(spec, { keyLabel: `gen-${_name}` });
    const signer = await hsm.getSigner(stored.options);
    expect(signer.keyType).toBe(spec.keyType);
    expect(signer.publicKeyDer.equals(stored.publicKeyDer)).toBe(true);
    for (const options of signatures) {
      const signature = await signer.sign(data, options);
      expect(opensslVerifies(stored.publicKeyDer, data, signature, options)).toBe(true);
      expect(opensslVerifies(stored.publicKeyDer, Buffer.concat([data, Buffer.from('x')]), signature, options)).toBe(false);
    }
  });

  test.each([
    ['RSA', () => crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey],
    ['EC', () => crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey],
    ['Ed25519', () => crypto.generateKeyPairSync('ed25519').privateKey],
  ])('%s key imported: sensitive and not extractable in the token; signs as the original key would', async (type, make) => {
    const key = make();
    const pem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
    const stored = await hsm.importKey(pem, undefined, { keyLabel: `imported-${type}` });
    const spki = crypto.createPublicKey(key).export({ type: 'spki', format: 'der' });
    expect(stored.publicKeyDer.equals(spki)).toBe(true);
    expect(JSON.stringify(stored.options)).not.toContain(pem.slice(40, 80));
    const options: SignatureOptions = { hash: type === 'Ed25519' ? null : 'SHA-256' };
    const signature = await (await hsm.getSigner(stored.options)).sign(data, options);
    expect(opensslVerifies(spki, data, signature, options)).toBe(true);
    const block = listObjects(token)
      .split(/\n(?=\S)/)
      .find((b) => b.startsWith('Private Key Object') && b.includes(`label:      imported-${type}\n`));
    expect(block).toMatch(/Access:\s+sensitive\s*$/); // not "extractable"; not "always sensitive" either: it was outside once
  });

  test('import_ca --key-backend hsm: the CA key goes into the token; view_ca names it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hsm-import-'));
    try {
      execFileSync(
        'openssl',
        selfSignedP256({ keyOut: 'ca.key', out: 'ca.pem', subject: '/CN=Imported CA', days: 30, extensions: CA_EXTENSIONS }),
        { cwd: dir, stdio: 'pipe' },
      );
      const imported = await cli([
        'import_ca',
        '--key-backend',
        'hsm',
        '--hsm-key-label',
        'imported-ca',
        'Imported',
        path.join(dir, 'ca.key'),
        path.join(dir, 'ca.pem'),
      ]);
      expect(imported.stderr).toBe('');
      const shown = await cli(['view_ca', 'Imported']);
      expect(shown.stdout).toMatch(/Key storage: hsm \(EC key labelled "imported-ca", id [0-9a-f]{32}\)/);
      expect(listObjects(token)).toContain('label:      imported-ca');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('what the backend or the token cannot do is a clear error', async () => {
    expect((await failure(() => hsm.createKey({ keyType: 'DSA', keySize: 2048 }))).message).toBe(
      'hsm: token "backend-test": generating DSA-2048 keys: DSA keys are not supported by the PKCS#11 key backend (RSA, EC, Ed25519 and Ed448 are).',
    );
    expect((await failure(() => hsm.createKey({ keyType: 'RSA', keySize: 100000 }))).message).toMatch(
      /^hsm: token "backend-test": the token does not support generating RSA-100000 keys \(RSA keys of \d+ to \d+ bits\)\.$/,
    );
    const rsa = await hsm.getSigner((await hsm.createKey({ keyType: 'RSA', keySize: 2048 })).options);
    expect((await failure(() => rsa.sign(data, { hash: 'SHA3/256', padding: 'pss' }))).message).toBe(
      'hsm: RSA-PSS with SHA3/256 is not supported by the PKCS#11 key backend (SHA-224 to SHA-512 are).',
    );
    expect((await failure(() => hsm.getSigner({ key_id: '00', key_label: 'nowhere', key_type: 'EC' }))).message).toBe(
      'hsm: token "backend-test": no key labelled "nowhere" with id 00.',
    );
    const dsa = crypto
      .generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' });
    expect((await failure(() => hsm.importKey(dsa as string))).message).toMatch(/DSA keys cannot be imported into the HSM/);
  });

  test('an RSA key made to decrypt (a SCEP RA): raw RSA in the token; what is no ciphertext is refused alike, the token unbothered', async () => {
    if (!hasKeyDecryption(hsm)) throw new Error('the PKCS#11 backend offers KeyDecryption');
    const stored = await hsm.createKey({ keyType: 'RSA', keySize: 2048 }, { keyLabel: 'decrypting', decrypt: true });
    const decrypter = await hsm.getDecrypter(stored.options);
    expect(decrypter.publicKeyDer.equals(stored.publicKeyDer)).toBe(true);
    const object = listObjects(token)
      .split(/\n(?=\S)/)
      .find((b) => b.startsWith('Private Key Object') && b.includes('label:      decrypting\n'));
    expect(object).toMatch(/Usage:\s+decrypt, sign\n/);
    expect(object).toMatch(/Access:\s+sensitive, always sensitive, never extractable, local/);

    // openssl encrypts a content key with PKCS#1 v1.5 padding, as SCEP clients do: the token's raw block is 00 02 PS 00 key.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hsm-decrypt-'));
    const publicKey = crypto.createPublicKey({ key: stored.publicKeyDer, format: 'der', type: 'spki' });
    /** `contentKey` encrypted to `to` (default: the decrypting key) by openssl. */
    const encrypt = (contentKey: Buffer, to = publicKey) => {
      fs.writeFileSync(path.join(dir, 'pub.pem'), to.export({ type: 'spki', format: 'pem' }));
      return execFileSync('openssl', ['pkeyutl', '-encrypt', '-pubin', '-inkey', 'pub.pem'], { cwd: dir, input: contentKey });
    };
    const contentKey = crypto.randomBytes(16);
    const decrypted = async () => {
      const raw = await decrypter.decryptRaw(encrypt(contentKey));
      const block = Buffer.concat([Buffer.alloc(256 - raw.length), raw]); // a token may drop the leading zero
      expect([block[0], block[1]]).toEqual([0, 2]);
      expect(block.subarray(-17).equals(Buffer.concat([Buffer.from([0]), contentKey]))).toBe(true);
    };
    try {
      await decrypted();
      // Not below the modulus, too short, too long: one refusal that names no cause (the caller takes a random key).
      for (const block of [Buffer.alloc(256, 0xff), Buffer.alloc(255, 0x11), Buffer.alloc(257, 0x11)]) {
        expect((await failure(() => decrypter.decryptRaw(block))).message).toBe('the token did not decrypt this block');
      }
      await decrypted(); // the sessions were not reset
      const signature = await (await hsm.getSigner(stored.options)).sign(data, { hash: 'SHA-256' });
      expect(opensslVerifies(stored.publicKeyDer, data, signature, { hash: 'SHA-256' })).toBe(true);

      // A key made only to sign (a CA's) does not decrypt: the token says so, and it is not the refusal above.
      const signing = await hsm.getDecrypter((await hsm.createKey({ keyType: 'RSA', keySize: 2048 })).options);
      const toSigning = crypto.createPublicKey({ key: signing.publicKeyDer, format: 'der', type: 'spki' });
      expect((await failure(() => signing.decryptRaw(encrypt(contentKey, toSigning)))).message).toMatch(
        /^hsm: token "backend-test": decrypting with RSA keys \(CKM_RSA_X_509\) failed \(CKR_KEY_FUNCTION_NOT_PERMITTED\)$/,
      );
      expect((await failure(() => hsm.createKey({ keyType: 'EC', curve: 'secp256r1' }, { decrypt: true }))).message).toBe(
        'hsm: token "backend-test": only RSA keys decrypt.',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('two sessions serve 40 concurrent signatures: all valid', async () => {
    const stored = await hsm.createKey({ keyType: 'EC', curve: 'secp256r1' });
    const signer = await hsm.getSigner(stored.options);
    const signatures = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signer.sign(Buffer.from(`message ${i}`), { hash: 'SHA-256' })),
    );
    const key = crypto.createPublicKey({ key: stored.publicKeyDer, format: 'der', type: 'spki' });
    signatures.forEach((signature, i) => expect(crypto.verify('sha256', Buffer.from(`message ${i}`), key, signature)).toBe(true));
  });

  test('without pkcs11js: an OptionsError that says what to install', () => {
    // A child process in which the package cannot be resolved, as on an install without the optional dependency.
    const script = `
      const Module = require('module');
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request === 'pkcs11js') { const e = new Error("Cannot find module 'pkcs11js'"); e.code = 'MODULE_NOT_FOUND'; throw e; }
        return resolve.call(this, request, ...rest);
      };
      require('ts-node').register({ transpileOnly: true, compilerOptions: { module: 'commonjs', moduleResolution: 'node', ignoreDeprecations: '6.0' } });
      const lib = require('./adapters/keys/pkcs11');
      try { lib.pkcs11KeyBackend({ library: 'x', token: 'y', pin: 'z' }); } catch (e) { console.log(e.name + ': ' + e.message); }`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '../..') }).toString();
    expect(out.trim()).toBe(
      'OptionsError: pkcs11KeyBackend: the PKCS#11 binding is not installed: run `npm install pkcs11js` ' +
        '(an optional dependency of express-ca-api, built with node-gyp: python3, make and a C++ compiler)',
    );
  });

  test('no error message carries the PIN', () => {
    expect(messages.length).toBeGreaterThan(4);
    for (const message of messages) expect(message).not.toContain(token.pin);
  });
});
