/**
 * No private key reaches the database in clear through the commands: `init_ca` of every key type and
 * `import_ca` of every corpus CA that has a key (the password-protected one included), then every
 * row of every table is read back — as PostgreSQL's text form of the row (bytea as hex) and bytea
 * columns as raw bytes — and searched for each key in every encoding it could have been written in.
 *
 * The clear keys come from outside the code under test where possible: the corpus key files decoded
 * by openssl for import_ca; for init_ca the stored envelope decrypted with the test KEK (the only way
 * to learn a generated key), checked by openssl to belong to the CA certificate.
 */
import { createPrivateKey } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { decryptKey, loadKek, parseEnvelope } from '../../adapters/keys/kek';
import { TABLES } from '../../adapters/store/knex/tables';
import { CORPUS_DIR, loadCorpus, pemToDer } from '../helpers/corpus';
import { testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { cliFixture, TEST_KEK } from './helpers';
import { openssl } from './openssl';

const INIT_CA: [string, string[]][] = [
  ['RSA', ['--key-size', '2048']],
  ['DSA', ['--key-size', '2048']],
  ['EC', ['--elliptic-curve', 'secp256r1']],
  ['Ed25519', []],
  ['Ed448', []],
];

// Parents before children (`child` is signed by `root`).
const IMPORTED = loadCorpus()
  .filter((e) => e.facts.type === 'ca' && e.keyDer)
  .sort((a, b) => Number(!!a.facts.parent) - Number(!!b.facts.parent));

/** A clear private key in every form a careless store could hold, as text and as bytes. */
interface Needles {
  label: string;
  texts: string[];
  binaries: Buffer[];
}

/**
 * All encodings of the private key in `keyFile` (DER or PEM, encrypted with `password` or not), as
 * openssl writes them: PKCS#8 and traditional DER (hex, base64, raw), every full PEM body line, the
 * key file as given, and the private component alone (JWK `d`) where Node can export one.
 */
function needlesFor(label: string, keyFile: string, password?: string): Needles {
  const pass = password ? ['-passin', `pass:${password}`] : [];
  const pkcs8Pem = openssl(['pkey', '-in', keyFile, ...pass, '-outform', 'PEM']);
  const pkcs8 = pemToDer(pkcs8Pem);
  // EdDSA keys have no traditional (pre-PKCS#8) encoding: their PKCS#8 form is the only one.
  const edDsa = ['ed25519', 'ed448'].includes(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).asymmetricKeyType!);
  const traditionalPem = edDsa ? pkcs8Pem : openssl(['pkey', '-in', keyFile, ...pass, '-outform', 'PEM', '-traditional']);
  const traditional = pemToDer(traditionalPem);
  const texts: string[] = [];
  const binaries: Buffer[] = [pkcs8, traditional];
  for (const der of [pkcs8, traditional]) texts.push(der.toString('hex'), der.toString('base64'));
  for (const pem of [pkcs8Pem, traditionalPem]) texts.push(...pem.split('\n').filter((line) => line.length === 64));
  const source = fs.readFileSync(keyFile);
  binaries.push(source);
  texts.push(source.toString('hex'), source.toString('base64'));
  if (password) texts.push(password);
  const jwk = privateComponent(pkcs8);
  if (jwk) {
    texts.push(jwk.toString('hex'), jwk.toString('base64'), jwk.toString('base64url'));
    binaries.push(jwk);
  }
  return { label, texts, binaries };
}

/** The secret scalar/exponent of a key (RSA d, EC d, EdDSA seed); null for DSA (no JWK form). */
function privateComponent(pkcs8: Buffer): Buffer | null {
  const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType === 'dsa') return null;
  const jwk = key.export({ format: 'jwk' });
  return jwk.d ? Buffer.from(jwk.d, 'base64url') : null;
}

interface Dump {
  /** Every row of every table, PostgreSQL's text form (bytea as \x hex). */
  text: string;
  /** Every value of every bytea column. */
  binary: Buffer[];
}

async function dumpAllTables(db: TestDatabase): Promise<Dump> {
  const tables = (
    (
      await db.knex.raw(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      )
    ).rows as { table_name: string }[]
  ).map((r) => r.table_name);
  expect(tables).toEqual(expect.arrayContaining(Object.values(TABLES)));
  const text: string[] = [];
  const binary: Buffer[] = [];
  for (const table of tables) {
    const rows = (await db.knex.raw(`SELECT t::text AS row FROM "${table}" t`)).rows as { row: string }[];
    text.push(...rows.map((r) => r.row));
    const byteaColumns = (
      (
        await db.knex.raw(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND data_type = 'bytea'",
          [table],
        )
      ).rows as { column_name: string }[]
    ).map((r) => r.column_name);
    for (const column of byteaColumns) {
      const values = (await db.knex(table).select(column)) as Record<string, Buffer | null>[];
      for (const v of values) if (v[column]) binary.push(Buffer.from(v[column]!));
    }
  }
  return { text: text.join('\n'), binary };
}

function expectAbsent(dump: Dump, needles: Needles): void {
  const lower = dump.text.toLowerCase();
  for (const needle of needles.texts) {
    // Hex may be stored in either case, base64 must not be found even case-folded (stricter).
    expect({ key: needles.label, found: lower.includes(needle.toLowerCase()) }).toEqual({ key: needles.label, found: false });
  }
  for (const der of needles.binaries) {
    for (const value of dump.binary) {
      expect({ key: needles.label, found: value.includes(der) }).toEqual({ key: needles.label, found: false });
    }
  }
}

describe.each(testDatabaseTargets())('CA private keys written by the commands on $name', (target) => {
  const f = cliFixture(target, 'ca-admin-keyscan-');

  it('appear nowhere in clear after init_ca (each key type) and import_ca (each corpus key)', async () => {
    const kek = loadKek(TEST_KEK)!;
    const needles: Needles[] = [];
    const ciphertexts: string[] = [];

    for (const [keyType, extra] of INIT_CA) {
      const name = `init-${keyType}`;
      const r = await f.cli(['init_ca', '--key-type', keyType, '--no-default-hostname', ...extra, name, `CN=${name}.example.com`]);
      expect(r.stderr).toBe('');
      const ca = (await f.db.store.findCaByName(name))!;
      const envelope = parseEnvelope(ca.keyBackendOptions!.privateKey);
      ciphertexts.push(envelope.ciphertext);
      const keyFile = path.join(f.dir, `${name}.key.der`);
      fs.writeFileSync(keyFile, decryptKey(kek, envelope));
      // The decrypted key is the CA's: openssl derives the certificate's public key from it.
      const certFile = path.join(f.dir, `${name}.pem`);
      fs.writeFileSync(certFile, (await f.cli(['view_ca', name, '--output-format', 'pem'])).stdout);
      expect(openssl(['pkey', '-in', keyFile, '-pubout'])).toBe(openssl(['x509', '-in', certFile, '-noout', '-pubkey']));
      needles.push(needlesFor(name, keyFile));
    }

    for (const entry of IMPORTED) {
      const keyFile = path.join(CORPUS_DIR, `${entry.name}.key.der`);
      const args = ['import_ca'];
      if (entry.facts.parent) args.push('--parent', entry.facts.parent);
      if (entry.facts.password) args.push('--import-password', entry.facts.password);
      args.push(entry.name, keyFile, path.join(CORPUS_DIR, `${entry.name}.pem`));
      const r = await f.cli(args);
      expect(r.stderr).toBe('');
      const ca = (await f.db.store.findCaByName(entry.name))!;
      ciphertexts.push(parseEnvelope(ca.keyBackendOptions!.privateKey).ciphertext);
      needles.push(needlesFor(entry.name, keyFile, entry.facts.password));
    }
    expect(needles).toHaveLength(INIT_CA.length + IMPORTED.length);
    expect(IMPORTED.map((e) => e.name)).toEqual(expect.arrayContaining(['pwd', 'root', 'child', 'dsa', 'ec', 'ed25519', 'ed448']));

    const dump = await dumpAllTables(f.db);
    // The scan sees what is stored: the encrypted keys in the text form, certificates in bytea.
    for (const c of ciphertexts) expect(dump.text).toContain(c);
    const rootDer = pemToDer(fs.readFileSync(path.join(CORPUS_DIR, 'root.pem'), 'utf8'));
    expect(dump.binary.some((b) => b.equals(rootDer))).toBe(true);
    expect(dump.text.toLowerCase()).toContain(rootDer.toString('hex'));

    for (const n of needles) expectAbsent(dump, n);
  });
});
