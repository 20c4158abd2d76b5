/**
 * A database dump must not be a key dump: store CAs whose keys come from the default backend, then
 * read every row of every table in PostgreSQL's text form (bytea as hex) and look for the private
 * keys in every encoding they could have been stored in.
 */
import { randomBytes } from 'crypto';
import { defaultKeyBackend } from '../../adapters/keys';
import { decryptKey, loadKek, parseEnvelope } from '../../adapters/keys/kek';
import { exportPrivateKey, importPrivateKey } from '../../lib/x509/keys';
import { loadCorpusEntry } from '../helpers/corpus';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from '../store/records';
import { TABLES } from '../../adapters/store/knex/tables';

describe.each(testDatabaseTargets())('stored CA keys on $name', (target) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(target);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('appear nowhere in clear in any table', async () => {
    const kek = randomBytes(32).toString('base64');
    const backend = defaultKeyBackend({ keyEncryptionKey: kek });
    const generated = await backend.createKey({ keyType: 'EC', curve: 'secp256r1' });
    const importedSource = loadCorpusEntry('root').keyDer!;
    const imported = await backend.importKey(importedSource);
    const rows = [
      await db.store.insertCa(newCa({ name: 'generated', keyBackendOptions: generated.options })),
      await db.store.insertCa(newCa({ name: 'imported', keyBackendOptions: imported.options })),
    ];
    // The stored keys are usable, so the rows scanned below really hold them.
    for (const [row, stored] of [
      [rows[0], generated],
      [rows[1], imported],
    ] as const) {
      const signer = await backend.getSigner((await db.store.getCa(row.id))!.keyBackendOptions!);
      expect(signer.publicKeyDer.equals(stored.publicKeyDer)).toBe(true);
    }

    // The clear keys in every form: PKCS#8 and the original encoding as hex and base64, PEM lines.
    const generatedPkcs8 = decryptKey(loadKek(kek)!, parseEnvelope(generated.options.privateKey));
    const needles: string[] = [];
    for (const der of [generatedPkcs8, importedSource]) {
      const key = importPrivateKey(der);
      const pkcs8 = exportPrivateKey(key, { format: 'der' });
      const pem = exportPrivateKey(key, { format: 'pem' });
      needles.push(pkcs8.toString('hex'), pkcs8.toString('base64'), der.toString('hex'), der.toString('base64'));
      // Every full line of the PEM body: a stored PEM contains them whatever its line breaks.
      needles.push(...pem.split('\n').filter((line) => line.length === 64));
    }

    const dump = await dumpAllTables(db);
    // The dump does contain the stored (encrypted) keys, so a clear key would have been found.
    expect(dump).toContain((generated.options.privateKey as { ciphertext: string }).ciphertext);
    expect(dump).toContain((imported.options.privateKey as { ciphertext: string }).ciphertext);
    const lowerDump = dump.toLowerCase();
    for (const needle of needles) {
      expect(dump.includes(needle)).toBe(false);
      expect(lowerDump.includes(needle.toLowerCase())).toBe(false);
    }
  });
});

/** Every row of every table in the store's schema, as PostgreSQL's text form of the row. */
async function dumpAllTables(db: TestDatabase): Promise<string> {
  const result = await db.knex.raw(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  const tables = (result.rows as { table_name: string }[]).map((r) => r.table_name);
  expect(tables).toEqual(expect.arrayContaining(Object.values(TABLES)));
  const parts: string[] = [];
  for (const table of tables) {
    const rows = (await db.knex.raw(`SELECT t::text AS row FROM "${table}" t`)).rows as { row: string }[];
    parts.push(...rows.map((r) => r.row));
  }
  return parts.join('\n');
}
