/**
 * The certificate cache of `GET /ca/{serial}/certs/{serial}/` (lib/api/certificate-cache.ts) on the
 * real knex store: a revocation made through the store in this process is seen at once (the store's
 * `onCertificateChanged`), also through the router; one made behind the store's back is seen once
 * the TTL has passed. The view's JSON text is built once per record and rebuilt after a change.
 */
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { CertificateCache } from '../../lib/api/certificate-cache';
import type { CertificateRecord, Store } from '../../lib/ports';
import { API, issueThroughApi, opensslCsr, setupApi, type ApiFixture } from './fixture';

let f: ApiFixture;
let csr: string;

beforeAll(async () => {
  f = await setupApi();
  csr = opensslCsr('EC').csr;
});
afterAll(() => f.close());

async function issue(): Promise<CertificateRecord> {
  const serial = await issueThroughApi(f, csr, { subject: [{ oid: 'CN', value: 'cached.example.com' }] });
  return (await f.store.findCertificate(f.ca.id, serial)) as CertificateRecord;
}

function counting(store: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const wrapped = Object.create(store) as Store;
  wrapped.findCertificate = (caId, serial) => {
    reads++;
    return store.findCertificate(caId, serial);
  };
  return { store: wrapped, reads: () => reads };
}

test('fresh rows come from memory; a revocation through the store (even in a transaction) drops them', async () => {
  const cert = await issue();
  const { store, reads } = counting(f.store);
  const cache = new CertificateCache(store, { ttlMs: 60_000 });
  try {
    expect((await cache.findCertificate(f.ca.id, cert.serial))?.revoked).toBe(false);
    expect((await cache.findCertificate(f.ca.id, cert.serial))?.revoked).toBe(false);
    expect(reads()).toBe(1);
    await f.store.transaction((tx) => tx.revokeCertificate(cert.id, 'key_compromise', null, new Date()));
    const after = await cache.findCertificate(f.ca.id, cert.serial);
    expect(after?.revoked).toBe(true);
    expect(after?.revokedReason).toBe('key_compromise');
    expect(reads()).toBe(2);
    expect(await cache.findCertificate(f.ca.id, 'ABCDEF')).toBeNull(); // unknown: not kept
    expect(await cache.findCertificate(f.ca.id + 1000, cert.serial)).toBeNull(); // the serial under another CA
  } finally {
    cache.close();
  }
});

test("a change behind the store's back is seen once the TTL has passed", async () => {
  const cert = await issue();
  let clock = 5_000;
  const cache = new CertificateCache(f.store, { ttlMs: 2_000, now: () => clock });
  try {
    expect((await cache.findCertificate(f.ca.id, cert.serial))?.revoked).toBe(false);
    await f.db
      .knex(TABLES.certificates)
      .where({ id: cert.id })
      .update({ revoked: true, revoked_date: new Date(), revoked_reason: 'superseded' });
    clock += 1_999;
    expect((await cache.findCertificate(f.ca.id, cert.serial))?.revoked).toBe(false);
    clock += 1;
    expect((await cache.findCertificate(f.ca.id, cert.serial))?.revoked).toBe(true);
  } finally {
    cache.close();
  }
});

test('through the router: a revocation shows on the next view, and the view text is rebuilt', async () => {
  const cert = await issue();
  const url = `${API}/ca/${f.ca.serial}/certs/${cert.serial}/`;
  const first = await request(f.app).get(url).set(f.auth('alice'));
  const second = await request(f.app).get(url).set(f.auth('alice'));
  expect(first.status).toBe(200);
  expect(second.text).toBe(first.text);
  expect(first.body.revoked).toBe(false);
  const revoked = await request(f.app).post(`${url}revoke/`).set(f.auth('alice')).send({ reason: 'superseded' });
  expect(revoked.status).toBe(200);
  const third = await request(f.app).get(url).set(f.auth('alice'));
  expect(third.body.revoked).toBe(true);
  expect(third.body.revoked_reason).toBe('superseded');
  expect(third.text).toBe(revoked.text); // the same record, serialised the same way
  // Lower case and leading zeros in the path find the same cached entry.
  const lower = await request(f.app).get(`${API}/ca/${f.ca.serial}/certs/00${cert.serial.toLowerCase()}/`).set(f.auth('alice'));
  expect(lower.text).toBe(third.text);
});
