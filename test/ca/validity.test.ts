/**
 * The validity window is one rule (lib/ports/validity.ts): `not_before < now <= not_after`. The API's
 * visibility check, the store's list filters (PGlite and, with TEST_DATABASE_URL, PostgreSQL) and
 * the CLI's "usable CA" must agree on it at the exact boundary instants.
 */
import * as fs from 'fs';
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { initCa } from '../../lib/ca/authorities';
import { signCert } from '../../lib/cli/certificates';
import { CaError } from '../../lib/ca/errors';
import { isUsable } from '../../lib/ca/lookup';
import { defaultProfiles } from '../../lib/ca/profiles';
import { isWithinValidity, VALIDITY_WINDOW } from '../../lib/ports/validity';
import { visibleCa } from '../../lib/api/visibility';
import type { CaRecord, CertificateRecord } from '../../lib/ports';
import { TEST_KEK } from '../cli/helpers';
import { opensslCsr, tmpDir } from '../cli/openssl';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

const keyBackends = [defaultKeyBackend({ keyEncryptionKey: TEST_KEK })];
const CREATED = new Date('2031-03-04T05:06:30.500Z');

/** The four instants that decide the rule, and what the rule says of each. */
function boundaries(r: { notBefore: Date; notAfter: Date }): [string, Date, boolean][] {
  const at = (d: Date, ms: number) => new Date(d.getTime() + ms);
  return [
    ['at not_before', at(r.notBefore, 0), false],
    ['just after not_before', at(r.notBefore, 1), true],
    ['at not_after', at(r.notAfter, 0), true],
    ['just after not_after', at(r.notAfter, 1), false],
  ];
}

test('the rule itself: not_before < now <= not_after, and the same comparisons as query data', () => {
  const r = { notBefore: new Date(1000), notAfter: new Date(2000) };
  expect(boundaries(r).map(([, t]) => isWithinValidity(r, t))).toEqual([false, true, true, false]);
  expect(VALIDITY_WINDOW).toEqual({ notBefore: { column: 'not_before', op: '<' }, notAfter: { column: 'not_after', op: '>=' } });
});

describe.each(testDatabaseTargets())('API, store and CLI agree on the boundary instants ($name)', (target) => {
  let db: TestDatabase;
  let ca: CaRecord;
  let cert: CertificateRecord;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    ca = await initCa({
      store: db.store,
      keyBackends,
      name: 'window',
      subject: [{ oid: 'CN', value: 'Window CA' }],
      keyType: 'EC',
      apiEnabled: true,
      expiresDays: 30,
      now: CREATED,
    });
    const dir = tmpDir('validity');
    try {
      const csr = fs.readFileSync(opensslCsr(dir, 'leaf', '/CN=leaf.example.com'), 'utf8');
      cert = await signCert({
        store: db.store,
        keyBackends,
        profiles: defaultProfiles(),
        ca,
        csr,
        subject: [{ oid: '2.5.4.3', value: 'leaf.example.com' }],
        expiresDays: 10,
        now: new Date(CREATED.getTime() + 60_000),
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(() => db?.close());

  test('a CA: visibleCa (API), listCas({ validAt }) (store), isUsable (CLI)', async () => {
    for (const [label, t, valid] of boundaries(ca)) {
      const api = await visibleCa(db.store, ca.serial, t, { allowExpired: false }).then(
        () => true,
        (e: unknown) => (e instanceof CaError && e.code === 'not-found' ? false : Promise.reject(e)),
      );
      const listed = (await db.store.listCas({ validAt: t })).some((c) => c.id === ca.id);
      expect({ label, rule: isWithinValidity(ca, t), api, store: listed, cli: isUsable(ca, t) }).toEqual({
        label,
        rule: valid,
        api: valid,
        store: valid,
        cli: valid,
      });
    }
  });

  test('a certificate: listCertificates (store, default filter) agrees with the rule', async () => {
    for (const [label, t, valid] of boundaries(cert)) {
      const listed = (await db.store.listCertificates({ caId: ca.id, now: t })).some((c) => c.id === cert.id);
      expect({ label, rule: isWithinValidity(cert, t), store: listed }).toEqual({ label, rule: valid, store: valid });
    }
  });
});
