/**
 * `ca-admin rotate_kek`: every stored key (CA keys, OCSP responder keys) moves to the new
 * key-encryption key in one transaction; afterwards every CA signs under the new key and the old key
 * opens nothing; a key that cannot be moved stops the rotation with nothing changed.
 */
import { createPrivateKey, createPublicKey, randomBytes, verify } from 'crypto';
import * as path from 'path';
import { Readable } from 'stream';
import { defaultKeyBackend, kekId } from '../../adapters/keys';
import { decryptKey, parseEnvelope } from '../../adapters/keys/kek';
import { TABLES } from '../../adapters/store/knex/tables';
import { CORPUS_DIR } from '../helpers/corpus';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture, cliRunner, TEST_KEK, type CliResult } from './helpers';
import { openssl, opensslCsr, opensslVerify } from './openssl';

const OLD = TEST_KEK;
const NEW = randomBytes(32).toString('base64');
const NEWER = randomBytes(32).toString('base64');
const id = (kek: string) => kekId(Buffer.from(kek, 'base64'));

/** Every stored envelope: each CA's own key and its OCSP responder's. */
interface StoredEnvelope {
  ca: string;
  kind: 'ca' | 'ocsp';
  envelope: ReturnType<typeof parseEnvelope>;
  /** Public key the envelope's private key must match (SPKI DER). */
  publicKeyDer: Buffer;
}

describe.each(testDatabaseTargets())('rotate_kek on $name', (target) => {
  const f = cliFixture(target, 'rotate-kek-');
  let csr: string;

  /** The CA table as stored (every column), for "nothing changed". */
  const snapshot = async () => JSON.stringify(await f.db.knex(TABLES.cas).select('*').orderBy('id'));
  /** Everything `ca-admin` printed in this file, scanned for key material at the end. */
  const printed: string[] = [];
  const withKek =
    (kek: string, env: Record<string, string> = {}) =>
    async (...args: Parameters<ReturnType<typeof cliRunner>>): Promise<CliResult> => {
      const r = await cliRunner(f.db.store, { CA_KEY_ENCRYPTION_KEY: kek, ...env })(...args);
      printed.push(r.stdout, r.stderr);
      return r;
    };
  const rotate = (args: string[], env: Record<string, string> = {}, from = OLD): Promise<CliResult> =>
    withKek(from, env)(['rotate_kek', ...args]);

  async function envelopes(): Promise<StoredEnvelope[]> {
    const out: StoredEnvelope[] = [];
    for (const ca of await f.db.store.listCas()) {
      if (ca.keyBackendOptions) {
        const spki = createPublicKey(openssl(['x509', '-noout', '-pubkey'], ca.certificate.pem));
        out.push({
          ca: ca.name,
          kind: 'ca',
          envelope: parseEnvelope(ca.keyBackendOptions.privateKey),
          publicKeyDer: spki.export({ type: 'spki', format: 'der' }),
        });
      }
      const row = (await f.db.knex(TABLES.cas).select('ocsp_key_backend_options').where({ id: ca.id }).first()) as {
        ocsp_key_backend_options: unknown;
      };
      const raw = row.ocsp_key_backend_options;
      const responder = (typeof raw === 'string' ? JSON.parse(raw) : raw) as {
        key_backend_options?: { privateKey: unknown };
        certificate_serial?: string;
      } | null;
      if (responder?.key_backend_options && responder.certificate_serial) {
        const [cert] = await f.db.store.findCertificateBySerial(responder.certificate_serial);
        const spki = createPublicKey(openssl(['x509', '-noout', '-pubkey'], cert.certificate.pem));
        out.push({
          ca: ca.name,
          kind: 'ocsp',
          envelope: parseEnvelope(responder.key_backend_options.privateKey),
          publicKeyDer: spki.export({ type: 'spki', format: 'der' }),
        });
      }
    }
    return out;
  }

  beforeAll(async () => {
    csr = opensslCsr(f.dir, 'leaf', '/CN=leaf.example.com');
    const cli = withKek(OLD);
    const ok = (r: CliResult) => expect([r.code, r.stderr]).toEqual([0, '']);
    ok(
      await cli([
        'init_ca',
        '--key-type',
        'EC',
        '--no-default-hostname',
        '--path-length',
        '1',
        '--expires',
        '365',
        'Root',
        'CN=Rotation Root',
      ]),
    );
    ok(
      await cli([
        'init_ca',
        '--key-type',
        'RSA',
        '--key-size',
        '2048',
        '--parent',
        'Root',
        '--expires',
        '200',
        '--no-default-hostname',
        'Inter',
        'CN=Rotation Intermediate',
      ]),
    );
    // An imported key (from a password-protected file), and a CA without a key, which has nothing to move.
    const pwd = path.join(CORPUS_DIR, 'pwd');
    ok(await cli(['import_ca', '--import-password', 'testpassword', 'Imported', `${pwd}.key.der`, `${pwd}.pem`]));
    ok(await cli(['import_ca', '--no-key', 'KeyElsewhere', path.join(CORPUS_DIR, 'ec.pem')]));
    ok(await cli(['generate_ocsp_keys', 'Root']));
  });

  it('takes the new key from a named environment variable or stdin, never from the command line', async () => {
    const before = await snapshot();
    const none = await rotate([]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^Error: Give the new key-encryption key with --new-key-env NAME .* or pipe it with --new-key-stdin/);
    const unknownOption = await rotate(['--new-key', NEW]);
    expect(unknownOption.code).not.toBe(0);
    expect(unknownOption.stderr).toContain("unknown option '--new-key'");
    const unset = await rotate(['--new-key-env', 'NOT_SET_ANYWHERE']);
    expect(unset.stderr).toBe('Error: The environment variable NOT_SET_ANYWHERE (--new-key-env) is not set or empty.\n');
    const same = await rotate(['--new-key-env', 'NEW_KEK'], { NEW_KEK: OLD });
    expect(same.stderr).toBe(`Error: The new key-encryption key is the one in use (CA_KEY_ENCRYPTION_KEY, KEK ${id(OLD)}).\n`);
    const short = await rotate(['--new-key-env', 'NEW_KEK'], { NEW_KEK: randomBytes(31).toString('base64') });
    expect(short.stderr).toMatch(/^Error: The key-encryption key must be exactly 32 bytes \(got 31\)/);
    const noOld = await rotate(['--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW }, '');
    expect(noOld.stderr).toMatch(/^Error: No key-encryption key is configured/);
    const noStdin = await rotate(['--new-key-stdin']);
    expect(noStdin.stderr).toBe('Error: --new-key-stdin reads the key from piped standard input, not a terminal.\n');
    const emptyStdin = await withKek(OLD)(['rotate_kek', '--new-key-stdin'], { stdin: Readable.from(['\n']) });
    expect(emptyStdin.stderr).toBe('Error: Standard input held no key-encryption key (--new-key-stdin).\n');
    const both = await withKek(OLD, { K: NEW })(['rotate_kek', '--new-key-env', 'K', '--new-key-stdin'], { stdin: Readable.from([NEW]) });
    expect(both.stderr).toBe('Error: Use only one of --new-key-env and --new-key-stdin.\n');
    for (const r of [none, unset, same, short, noOld, noStdin, emptyStdin, both]) expect(r.code).toBe(1);
    expect(await snapshot()).toBe(before);
  });

  it('stops at a key it cannot decrypt, naming its CA, and changes nothing (one transaction)', async () => {
    // A CA made under a third KEK, after the others: the rotation has re-encrypted them before it
    // meets this one, so an unchanged table proves the rollback.
    const third = randomBytes(32).toString('base64');
    expect((await withKek(third)(['init_ca', '--key-type', 'EC', 'Stray', 'CN=Stray'])).code).toBe(0);
    const before = await snapshot();
    const r = await rotate(['--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const stray = (await f.db.store.findCaByName('Stray'))!;
    expect(r.stderr).toBe(
      `Error: Stray (${stray.serial}): The key is encrypted under key-encryption key ${id(third)}, neither the current one ` +
        `(${id(OLD)}) nor the new one (${id(NEW)}). Nothing was changed.\n`,
    );
    expect(await snapshot()).toBe(before);

    // The same with a damaged ciphertext under the right KEK: authentication fails, nothing changes.
    const envelope = parseEnvelope(stray.keyBackendOptions!.privateKey);
    const ours = (await f.db.store.findCaByName('Root'))!.keyBackendOptions!;
    const damaged = parseEnvelope(ours.privateKey);
    const bytes = Buffer.from(damaged.ciphertext, 'base64');
    bytes[bytes.length - 1] ^= 1;
    await f.db
      .knex(TABLES.cas)
      .where({ id: stray.id })
      .update({ key_backend_options: JSON.stringify({ privateKey: { ...damaged, ciphertext: bytes.toString('base64') } }) });
    const beforeDamaged = await snapshot();
    const r2 = await rotate(['--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toBe(
      `Error: Stray (${stray.serial}): The CA's stored private key failed authentication: the stored data was altered or damaged. Nothing was changed.\n`,
    );
    expect(await snapshot()).toBe(beforeDamaged);
    expect(envelope.kekId).toBe(id(third));

    await f.db.knex(TABLES.cas).where({ id: stray.id }).delete();
  });

  it('--dry-run checks every key and changes nothing', async () => {
    const before = await snapshot();
    const r = await rotate(['--dry-run', '--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      `Dry run: would re-encrypt 4 key(s) (3 CA, 1 OCSP responder) from key-encryption key ${id(OLD)} to ${id(NEW)}. Nothing was changed.\n`,
    );
    expect(await snapshot()).toBe(before);
  });

  it('re-encrypts every key; every CA signs under the new key and the old key opens nothing', async () => {
    const before = await envelopes();
    expect(before.map((e) => `${e.ca}/${e.kind}`)).toEqual(['Root/ca', 'Root/ocsp', 'Inter/ca', 'Imported/ca']);
    expect(new Set(before.map((e) => e.envelope.kekId))).toEqual(new Set([id(OLD)]));
    const ocspBefore = (await withKek(OLD)(['generate_ocsp_keys', 'Root'])).stdout;

    const r = await rotate(['--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Re-encrypted 4 key(s) (3 CA, 1 OCSP responder) from key-encryption key ${id(OLD)} to ${id(NEW)}.\n`);
    // What to do next is for the operator, not data: stderr.
    expect(r.stderr).toBe(
      'Now set CA_KEY_ENCRYPTION_KEY to the new key wherever the CA keys are used (servers, ca-admin) and restart the ' +
        'servers: the old key opens none of these keys any more. Keep the new key safe.\n',
    );

    const after = await envelopes();
    expect(after.map((e) => `${e.ca}/${e.kind}`)).toEqual(before.map((e) => `${e.ca}/${e.kind}`));
    const oldKey = Buffer.from(OLD, 'base64');
    const newKey = Buffer.from(NEW, 'base64');
    for (const [i, { envelope, publicKeyDer }] of after.entries()) {
      expect(envelope.kekId).toBe(id(NEW));
      expect(envelope.ciphertext).not.toBe(before[i].envelope.ciphertext);
      // The old key fails the cipher itself, not just the identifier check.
      expect(() => decryptKey({ key: oldKey, id: envelope.kekId }, envelope)).toThrow(/failed authentication/);
      const der = decryptKey({ key: newKey, id: id(NEW) }, envelope);
      expect(createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ type: 'spki', format: 'der' })).toEqual(
        publicKeyDer,
      );
      // And the key signs through the backend, as the server would use it.
      const signer = await defaultKeyBackend({ keyEncryptionKey: NEW }).getSigner({ privateKey: envelope });
      const data = Buffer.from(`signed by ${i}`);
      const signature = await signer.sign(data, { hash: 'SHA-256' });
      expect(verify('sha256', data, createPublicKey({ key: publicKeyDer, format: 'der', type: 'spki' }), signature)).toBe(true);
    }

    // End to end: both usable CAs sign under the new key, and openssl accepts the chain.
    const cli = withKek(NEW);
    const rootPem = (await cli(['view_ca', 'Root', '--output-format', 'pem'])).stdout;
    const interPem = (await cli(['view_ca', 'Inter', '--output-format', 'pem'])).stdout;
    const fromRoot = await cli(['sign_cert', '--ca', 'Root', '--csr', csr, '--subject', 'CN=root-leaf.example.com']);
    expect(fromRoot.stderr).toBe('');
    expect(opensslVerify(f.dir, rootPem, fromRoot.stdout)).toContain(': OK');
    const fromInter = await cli(['sign_cert', '--ca', 'Inter', '--csr', csr, '--subject', 'CN=inter-leaf.example.com']);
    expect(fromInter.stderr).toBe('');
    expect(opensslVerify(f.dir, rootPem, fromInter.stdout, [interPem])).toContain(': OK');
    // The OCSP responder key was moved, not replaced: the same responder loads under the new key.
    expect((await cli(['generate_ocsp_keys', 'Root'])).stdout).toBe(ocspBefore);

    // The old key signs nothing, and says why.
    const old = await withKek(OLD)(['sign_cert', '--ca', 'Inter', '--csr', csr, '--subject', 'CN=old.example.com']);
    expect(old.code).toBe(1);
    expect(old.stdout).toBe('');
    expect(old.stderr).toBe(
      "Error: The key-encryption key does not match the one this CA's key was encrypted with " +
        `(key needs KEK ${id(NEW)}, configured KEK is ${id(OLD)}). ` +
        'Set CA_KEY_ENCRYPTION_KEY to the key-encryption key that was in use when the CA was created.\n',
    );
    expect((await withKek(OLD)(['generate_ocsp_keys', 'Root'])).code).toBe(1);
  });

  it('a second run with the same new key finds nothing to do; --new-key-stdin moves on to another key', async () => {
    const before = await snapshot();
    const again = await rotate(['--new-key-env', 'NEW_KEK'], { NEW_KEK: NEW });
    expect(again.stdout).toMatch(/^Re-encrypted 0 key\(s\) \(0 CA, 0 OCSP responder\) .*; 4 key\(s\) were under the new key already\.\n$/);
    expect(await snapshot()).toBe(before);

    const r = await withKek(NEW)(['rotate_kek', '--new-key-stdin'], { stdin: Readable.from([`${NEWER}\n`]) });
    expect(r.stderr).toMatch(/^Now set CA_KEY_ENCRYPTION_KEY to the new key/);
    expect(r.stdout).toMatch(new RegExp(`^Re-encrypted 4 key\\(s\\) .* from key-encryption key ${id(NEW)} to ${id(NEWER)}\\.\n$`));
    const signed = await withKek(NEWER)(['sign_cert', '--ca', 'Root', '--csr', csr, '--subject', 'CN=newer.example.com']);
    expect(signed.stderr).toBe('');
    const rootPem = (await withKek(NEWER)(['view_ca', 'Root', '--output-format', 'pem'])).stdout;
    expect(opensslVerify(f.dir, rootPem, signed.stdout)).toContain(': OK');
    expect((await withKek(NEW)(['sign_cert', '--ca', 'Root', '--csr', csr])).code).toBe(1);
  });

  it('printed key identifiers only, never key material', () => {
    const text = printed.join('\n');
    expect(text).toContain(id(NEW));
    for (const kek of [OLD, NEW, NEWER]) {
      const raw = Buffer.from(kek, 'base64');
      for (const form of [kek, raw.toString('hex'), raw.toString('base64url')]) expect(text).not.toContain(form);
    }
  });
});
