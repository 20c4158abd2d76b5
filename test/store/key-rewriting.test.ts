/**
 * `store.rewriteStoredKeys(alias, …)` (lib/ports/key-rotation.ts, used by `ca-admin rotate_kek`) hands
 * over every key of backend `alias` that a CA row refers to, and only those: a CA whose own key is
 * in one backend (an HSM) and its OCSP responder's keys in another (`ocsp_key_backend_alias`) has
 * each key rewritten by the rotation of its own backend.
 */
import type { KnexStore } from '../../adapters/store/knex/store';
import { TABLES } from '../../adapters/store/knex/tables';
import type { StoredKeyReference } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from './records';

describe.each(testDatabaseTargets())('rewriteStoredKeys on $name', (target) => {
  let db: TestDatabase;
  let store: KnexStore;
  beforeAll(async () => {
    db = await openTestDatabase(target);
    store = db.store as KnexStore;
  });
  afterAll(() => db?.close());

  async function caWithResponder(name: string, keyBackendAlias: string, ocspKeyBackendAlias: string): Promise<number> {
    const ca = await store.insertCa(newCa({ name, keyBackendAlias, ocspKeyBackendAlias, keyBackendOptions: { key: `${name}-ca` } }));
    await store.setOcspResponder(ca.id, { keyBackendOptions: { key: `${name}-ocsp` }, certificateSerial: 'AB' });
    return ca.id;
  }

  /** What the rotation of `alias` is handed, and the options stored afterwards. */
  async function rotate(alias: string): Promise<{ seen: string[]; stored: unknown[] }> {
    const seen: string[] = [];
    const count = await store.rewriteStoredKeys(alias, (key: StoredKeyReference) => {
      seen.push(`${key.kind}:${String(key.options.key)}`);
      return { key: `${String(key.options.key)}+${alias}` };
    });
    expect(count).toBe(seen.length);
    const rows = (await db.knex(TABLES.cas).select('key_backend_options', 'ocsp_key_backend_options').orderBy('id')) as Record<
      string,
      unknown
    >[];
    const parse = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);
    return { seen: seen.sort(), stored: rows.map((r) => [parse(r.key_backend_options), parse(r.ocsp_key_backend_options)]) };
  }

  test('each key goes to the rotation of its own backend: the CA key by key_backend_alias, the responder key by ocsp_key_backend_alias', async () => {
    await caWithResponder('plain', 'default', 'default');
    await caWithResponder('hsm-ca', 'hsm', 'default');
    await caWithResponder('all-hsm', 'hsm', 'hsm');

    const byDefault = await rotate('default');
    expect(byDefault.seen).toEqual(['ca:plain-ca', 'ocsp:hsm-ca-ocsp', 'ocsp:plain-ocsp']);
    const byHsm = await rotate('hsm');
    expect(byHsm.seen).toEqual(['ca:all-hsm-ca', 'ca:hsm-ca-ca', 'ocsp:all-hsm-ocsp']);
    expect(byHsm.stored).toEqual([
      [{ key: 'plain-ca+default' }, { key_backend_options: { key: 'plain-ocsp+default' }, certificate_serial: 'AB' }],
      [{ key: 'hsm-ca-ca+hsm' }, { key_backend_options: { key: 'hsm-ca-ocsp+default' }, certificate_serial: 'AB' }],
      [{ key: 'all-hsm-ca+hsm' }, { key_backend_options: { key: 'all-hsm-ocsp+hsm' }, certificate_serial: 'AB' }],
    ]);
  });

  test('a SCEP RA key (ca_api_delegate_keys) goes to the rotation of the backend that holds it, not of its CA’s', async () => {
    const id = await caWithResponder('with-ra', 'hsm', 'hsm');
    await store.setDelegateKey(id, 'scep_ra', {
      keyBackendAlias: 'default',
      keyBackendOptions: { key: 'with-ra-ra' },
      certificateSerial: 'CD',
    });
    const byDefault = await rotate('default');
    expect(byDefault.seen).toContain('scep_ra:with-ra-ra');
    expect(byDefault.seen).not.toContain('ca:with-ra-ca');
    expect(await store.getDelegateKey(id, 'scep_ra')).toEqual({
      keyBackendAlias: 'default',
      keyBackendOptions: { key: 'with-ra-ra+default' },
      certificateSerial: 'CD',
    });
    expect((await rotate('hsm')).seen).not.toContain('scep_ra:with-ra-ra+default');
  });
});
