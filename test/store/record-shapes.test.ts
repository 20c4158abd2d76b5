/**
 * The records and rows of certificates share one hidden class whatever certificate they hold:
 * `newCertificateRecord` (lib/ca/records.ts), and the knex store's `newCertificateToRow` and
 * `certificateFromRow`. Built as `{ ...common, more }`, each would get one of its own, allocated in
 * the old generation, for every certificate issued (docs/DESIGN.md "Issuance throughput") — once V8's
 * inline cache of the spread has seen a few calls, hence the twenty rounds here.
 */
import { newCertificateRecord } from '../../lib/ca/records';
import { parseCertificate } from '../../lib/x509/certificate';
import { certificateFromRow, newCertificateToRow } from '../../adapters/store/knex/rows';
import { loadCorpus } from '../helpers/corpus';
import { haveSameMap } from '../helpers/v8-shapes';

const certs = loadCorpus()
  .filter((e) => !e.name.includes('ca'))
  .slice(0, 2)
  .map((e) => parseCertificate(e.pem));

test('records, rows and records read back of different certificates each share a hidden class', () => {
  const rounds = Array.from({ length: 20 }, (_, i) => {
    const record = newCertificateRecord(certs[i % 2], { caId: i + 1, csr: null, profile: 'server' });
    const row = newCertificateToRow(record);
    const read = certificateFromRow({ ...row, id: i + 1, created: new Date(), updated: new Date() });
    return { record, row, read };
  });
  const [a, b] = rounds.slice(-2);
  expect(a.read.serial).not.toBe(b.read.serial);
  expect(a.read.serial).toBe(a.record.serial);
  expect(haveSameMap(a.record, b.record)).toBe(true);
  expect(haveSameMap(a.row, b.row)).toBe(true);
  expect(haveSameMap(a.read, b.read)).toBe(true);
});
