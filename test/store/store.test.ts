/**
 * Every Store method, on every test database target (PGlite always, PostgreSQL when
 * TEST_DATABASE_URL is set). One database per target for the whole file; tables are emptied between
 * tests.
 */
import { ALL_PERMISSIONS, hasBatchOrders, StoreConflictError, StoreNotFoundError, type Store } from '../../lib/ports';
import type { Extension } from '../../lib/x509/types';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa, newCertificate, randomSerial, signRequest } from './records';

const DAY = 24 * 3600 * 1000;

describe.each(testDatabaseTargets())('knex store on $name', (target) => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    store = db.store;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });

  async function user(name = 'alice') {
    return store.createUser(name, 'hash', []);
  }

  describe('migrations', () => {
    it('are idempotent and recorded in the store’s own table', async () => {
      await store.migrate();
      const rows = await db.knex('ca_api_knex_migrations').select('name');
      expect(rows.map((r: { name: string }) => r.name)).toEqual([
        '0001_initial',
        '0002_revocation',
        '0003_inventory',
        '0004_events',
        '0005_acme_nonces',
        '0006_acme',
        '0007_acme_policy',
        '0008_acme_pending_count',
        '0009_acme_event_actor',
        '0010_acme_stateless_nonces',
        '0011_audit_chain',
        '0012_webhooks',
        '0013_kek_rotation_reseal',
        '0014_acme_source_address',
        '0015_san_search_given',
      ]);
    });
  });

  describe('certificate authorities', () => {
    it('round-trips every field with the drivers’ types normalised', async () => {
      const aia: Extension = {
        type: 'authority_information_access',
        critical: false,
        value: [{ access_method: 'ocsp', access_location: { type: 'URI', value: 'http://ocsp.example.com' } }],
      };
      const input = newCa({
        apiEnabled: true,
        caaIdentity: 'example.com',
        website: 'https://example.com',
        termsOfService: 'https://example.com/tos',
        signAuthorityInformationAccess: aia,
        ocspResponderKeyValidity: 5,
        ocspResponseValidity: 3600,
        acmeProfile: 'server',
        revoked: true,
        revokedDate: new Date('2024-01-02T03:04:05.678Z'),
        revokedReason: 'key_compromise',
        compromised: new Date('2024-01-01T00:00:00.000Z'),
      });
      const stored = await store.insertCa(input);
      expect(typeof stored.id).toBe('number');
      expect(stored.created).toBeInstanceOf(Date);
      expect(stored.updated).toBeInstanceOf(Date);

      for (const read of [await store.getCa(stored.id), await store.findCaBySerial(input.serial), await store.findCaByName(input.name)]) {
        expect(read).not.toBeNull();
        const { id, created, updated, ...rest } = read!;
        expect(id).toBe(stored.id);
        expect(created.getTime()).toBe(stored.created.getTime());
        expect(updated.getTime()).toBe(stored.updated.getTime());
        expect(rest).toEqual(input);
        expect(Buffer.isBuffer(rest.der)).toBe(true);
        expect(rest.der.equals(input.der)).toBe(true);
        // json columns keep key order, which the API's output depends on.
        expect(JSON.stringify(rest.certificate)).toBe(JSON.stringify(input.certificate));
        expect(JSON.stringify(rest.fingerprints)).toBe(JSON.stringify(input.fingerprints));
        expect(JSON.stringify(rest.signAuthorityInformationAccess)).toBe(JSON.stringify(aia));
      }
    });

    it('returns null for unknown CAs', async () => {
      expect(await store.getCa(12345)).toBeNull();
      expect(await store.findCaBySerial('ABC')).toBeNull();
      expect(await store.findCaByName('nope')).toBeNull();
    });

    it('stores a CA without a key (null key_backend_options) and a parent link', async () => {
      const root = await store.insertCa(newCa({ name: 'root' }));
      const child = await store.insertCa(newCa({ name: 'child', parentId: root.id, keyBackendOptions: null }));
      const read = await store.getCa(child.id);
      expect(read?.parentId).toBe(root.id);
      expect(read?.keyBackendOptions).toBeNull();
    });

    it('refuses duplicate serials and names with a typed conflict', async () => {
      const first = await store.insertCa(newCa({ name: 'one' }));
      await expect(store.insertCa(newCa({ name: 'two', serial: first.serial }))).rejects.toMatchObject({
        constructor: StoreConflictError,
        entity: 'ca',
        field: 'serial',
      });
      await expect(store.insertCa(newCa({ name: 'one' }))).rejects.toMatchObject({ entity: 'ca', field: 'name' });
      expect(await store.listCas()).toHaveLength(1);
    });

    it('lists by ascending id and filters by enabled, api_enabled and validity', async () => {
      const now = Date.now();
      const a = await store.insertCa(newCa({ name: 'a', enabled: true, apiEnabled: true }));
      const b = await store.insertCa(newCa({ name: 'b', enabled: false, apiEnabled: true }));
      const c = await store.insertCa(newCa({ name: 'c', enabled: true, apiEnabled: false }));
      const expired = await store.insertCa(newCa({ name: 'expired', notBefore: new Date(now - 10 * DAY), notAfter: new Date(now - DAY) }));
      const future = await store.insertCa(newCa({ name: 'future', notBefore: new Date(now + DAY), notAfter: new Date(now + 10 * DAY) }));
      const ids = (list: { id: number }[]) => list.map((x) => x.id);

      expect(ids(await store.listCas())).toEqual([a.id, b.id, c.id, expired.id, future.id]);
      expect(ids(await store.listCas({ enabled: true }))).toEqual([a.id, c.id, expired.id, future.id]);
      expect(ids(await store.listCas({ apiEnabled: true }))).toEqual([a.id, b.id]);
      expect(ids(await store.listCas({ enabled: true, apiEnabled: true }))).toEqual([a.id]);
      expect(ids(await store.listCas({ validAt: new Date(now) }))).toEqual([a.id, b.id, c.id]);
      // The window is not_before < t <= not_after.
      expect(ids(await store.listCas({ validAt: expired.notAfter }))).toContain(expired.id);
      expect(ids(await store.listCas({ validAt: future.notBefore }))).not.toContain(future.id);
    });

    it('updates only the fields present in a patch and bumps updated', async () => {
      const aia: Extension = { type: 'authority_information_access', critical: false, value: [] };
      const ca = await store.insertCa(newCa({ name: 'orig', website: 'https://old', signAuthorityInformationAccess: aia }));
      const before = new Date();
      const patched = await store.updateCa(ca.id, {
        name: 'renamed',
        apiEnabled: true,
        signAuthorityInformationAccess: null,
        signIssuerAlternativeName: { type: 'issuer_alternative_name', critical: false, value: [{ type: 'DNS', value: 'x' }] },
        acmeRequiresContact: false,
      });
      expect(patched.name).toBe('renamed');
      expect(patched.apiEnabled).toBe(true);
      expect(patched.website).toBe('https://old');
      expect(patched.signAuthorityInformationAccess).toBeNull();
      expect(patched.signIssuerAlternativeName?.value).toEqual([{ type: 'DNS', value: 'x' }]);
      expect(patched.acmeRequiresContact).toBe(false);
      expect(patched.updated.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(patched.created.getTime()).toBe(ca.created.getTime());
      expect(await store.getCa(ca.id)).toEqual(patched);

      const empty = await store.updateCa(ca.id, {});
      expect(empty.name).toBe('renamed');
      expect(empty.updated.getTime()).toBeGreaterThanOrEqual(patched.updated.getTime());
    });

    it('reports patch conflicts and unknown ids with typed errors', async () => {
      await store.insertCa(newCa({ name: 'taken' }));
      const ca = await store.insertCa(newCa({ name: 'mine' }));
      await expect(store.updateCa(ca.id, { name: 'taken' })).rejects.toBeInstanceOf(StoreConflictError);
      await expect(store.updateCa(9999, { name: 'x' })).rejects.toBeInstanceOf(StoreNotFoundError);
      await expect(store.revokeCa(9999, '', null, new Date())).rejects.toBeInstanceOf(StoreNotFoundError);
    });

    it('revokes with reason, date and compromise time', async () => {
      const ca = await store.insertCa(newCa());
      const when = new Date('2025-02-03T04:05:06.789Z');
      const compromised = new Date('2025-01-01T00:00:00Z');
      const revoked = await store.revokeCa(ca.id, 'ca_compromise', compromised, when);
      expect(revoked).toMatchObject({ revoked: true, revokedReason: 'ca_compromise', revokedDate: when, compromised });
      expect(await store.getCa(ca.id)).toEqual(revoked);
    });
  });

  describe('certificates', () => {
    it('round-trips every field', async () => {
      const ca = await store.insertCa(newCa());
      const input = newCertificate(ca.id, { profile: 'server', autogenerated: true });
      const stored = await store.insertCertificate(input);
      const read = await store.findCertificate(ca.id, input.serial);
      expect(read).toEqual(stored);
      const { id, created, updated, watchers, ...rest } = read!;
      expect(typeof id).toBe('number');
      expect(created).toBeInstanceOf(Date);
      expect(updated).toBeInstanceOf(Date);
      expect(watchers).toEqual([]);
      expect(rest).toEqual(input);
      expect(Buffer.isBuffer(rest.der)).toBe(true);
      expect(JSON.stringify(rest.certificate)).toBe(JSON.stringify(input.certificate));
    });

    it('keeps a null CSR', async () => {
      const ca = await store.insertCa(newCa());
      const cert = await store.insertCertificate(newCertificate(ca.id, { csr: null, profile: '' }));
      expect((await store.findCertificate(ca.id, cert.serial))?.csr).toBeNull();
    });

    it('finds by CA and serial, and by serial across CAs', async () => {
      const ca1 = await store.insertCa(newCa({ name: 'one' }));
      const ca2 = await store.insertCa(newCa({ name: 'two' }));
      const serial = randomSerial();
      const c1 = await store.insertCertificate(newCertificate(ca1.id, { serial }));
      const c2 = await store.insertCertificate(newCertificate(ca2.id, { serial }));
      expect((await store.findCertificate(ca1.id, serial))?.id).toBe(c1.id);
      expect((await store.findCertificate(ca2.id, serial))?.id).toBe(c2.id);
      expect(await store.findCertificate(ca1.id, 'ABCDEF')).toBeNull();
      expect((await store.findCertificateBySerial(serial)).map((c) => c.id)).toEqual([c1.id, c2.id]);
      expect(await store.findCertificateBySerial('ABCDEF')).toEqual([]);
    });

    it('refuses a second certificate with the same serial from one CA', async () => {
      const ca = await store.insertCa(newCa());
      const cert = await store.insertCertificate(newCertificate(ca.id));
      await expect(store.insertCertificate(newCertificate(ca.id, { serial: cert.serial }))).rejects.toMatchObject({
        constructor: StoreConflictError,
        entity: 'certificate',
        field: 'serial',
      });
    });

    it('lists with the GET /ca/{serial}/certs/ filter semantics', async () => {
      const now = new Date();
      const ca = await store.insertCa(newCa({ name: 'issuer' }));
      const other = await store.insertCa(newCa({ name: 'other' }));
      const valid = await store.insertCertificate(newCertificate(ca.id, { profile: 'webserver' }));
      const server = await store.insertCertificate(newCertificate(ca.id, { profile: 'server' }));
      const expired = await store.insertCertificate(
        newCertificate(ca.id, { notBefore: new Date(now.getTime() - 10 * DAY), notAfter: new Date(now.getTime() - DAY) }),
      );
      const notYet = await store.insertCertificate(
        newCertificate(ca.id, { notBefore: new Date(now.getTime() + DAY), notAfter: new Date(now.getTime() + 9 * DAY) }),
      );
      const revoked = await store.insertCertificate(
        newCertificate(ca.id, { revoked: true, revokedDate: now, revokedReason: 'superseded' }),
      );
      const auto = await store.insertCertificate(newCertificate(ca.id, { autogenerated: true }));
      await store.insertCertificate(newCertificate(other.id));
      const ids = async (filter: Parameters<Store['listCertificates']>[0]) => (await store.listCertificates(filter)).map((c) => c.id);

      expect(await ids({ caId: ca.id, now })).toEqual([valid.id, server.id]);
      expect(await ids({ caId: ca.id, now, includeExpired: true })).toEqual([valid.id, server.id, expired.id, notYet.id]);
      expect(await ids({ caId: ca.id, now, includeRevoked: true })).toEqual([valid.id, server.id, revoked.id]);
      expect(await ids({ caId: ca.id, now, includeAutogenerated: true })).toEqual([valid.id, server.id, auto.id]);
      expect(await ids({ caId: ca.id, now, profile: 'server' })).toEqual([server.id]);
      expect(await ids({ caId: ca.id, now, profile: 'other-profile' })).toEqual([]);
      expect(await ids({ caId: ca.id, now, includeExpired: true, includeRevoked: true, includeAutogenerated: true })).toEqual([
        valid.id,
        server.id,
        expired.id,
        notYet.id,
        revoked.id,
        auto.id,
      ]);
      // `now` defaults to the current time.
      expect(await ids({ caId: ca.id })).toEqual([valid.id, server.id]);
      // Validity boundaries: not_before < now <= not_after.
      expect(await ids({ caId: ca.id, now: expired.notAfter, includeRevoked: true })).toContain(expired.id);
      expect(await ids({ caId: ca.id, now: notYet.notBefore })).not.toContain(notYet.id);
    });

    it('pages by id with afterId and limit', async () => {
      const ca = await store.insertCa(newCa());
      const all: number[] = [];
      for (let i = 0; i < 5; i++) all.push((await store.insertCertificate(newCertificate(ca.id))).id);
      const pages: number[][] = [];
      let afterId: number | undefined;
      for (;;) {
        const page = (await store.listCertificates({ caId: ca.id, afterId, limit: 2 })).map((c) => c.id);
        if (!page.length) break;
        pages.push(page);
        afterId = page[page.length - 1];
      }
      expect(pages).toEqual([all.slice(0, 2), all.slice(2, 4), all.slice(4)]);
    });

    it('revokes and reports unknown ids', async () => {
      const ca = await store.insertCa(newCa());
      const cert = await store.insertCertificate(newCertificate(ca.id));
      const when = new Date('2025-03-01T00:00:00.123Z');
      const revoked = await store.revokeCertificate(cert.id, 'key_compromise', null, when);
      expect(revoked).toMatchObject({ revoked: true, revokedReason: 'key_compromise', revokedDate: when, compromised: null });
      expect(await store.findCertificate(ca.id, cert.serial)).toEqual(revoked);
      await expect(store.revokeCertificate(9999, '', null, when)).rejects.toBeInstanceOf(StoreNotFoundError);
    });

    it('exposes watchers linked to a certificate', async () => {
      const ca = await store.insertCa(newCa());
      const cert = await store.insertCertificate(newCertificate(ca.id));
      const plain = await store.insertCertificate(newCertificate(ca.id));
      const [w1] = await db.knex('ca_api_watchers').insert({ name: 'Ops', mail: 'ops@example.com' }).returning('id');
      const [w2] = await db.knex('ca_api_watchers').insert({ name: '', mail: 'dev@example.com' }).returning('id');
      await db.knex('ca_api_certificate_watchers').insert([
        { certificate_id: cert.id, watcher_id: w2.id },
        { certificate_id: cert.id, watcher_id: w1.id },
      ]);
      const listed = await store.listCertificates({ caId: ca.id });
      expect(listed.find((c) => c.id === cert.id)?.watchers).toEqual([
        { id: w1.id, name: 'Ops', mail: 'ops@example.com' },
        { id: w2.id, name: '', mail: 'dev@example.com' },
      ]);
      expect(listed.find((c) => c.id === plain.id)?.watchers).toEqual([]);
      expect((await store.findCertificate(ca.id, cert.serial))?.watchers).toHaveLength(2);
    });
  });

  describe('orders', () => {
    it('creates pending orders with random 12-character slugs', async () => {
      const ca = await store.insertCa(newCa());
      const alice = await user();
      const request = signRequest();
      const a = await store.createOrder({ caId: ca.id, userId: alice.id, request });
      const b = await store.createOrder({ caId: ca.id, userId: alice.id, request });
      for (const order of [a, b]) {
        expect(order.slug).toMatch(/^[a-zA-Z0-9]{12}$/);
        expect(order).toMatchObject({
          caId: ca.id,
          userId: alice.id,
          status: 'pending',
          certificateSerial: null,
          certificateId: null,
          error: null,
          leaseOwner: null,
          leaseExpires: null,
        });
        expect(order.request).toEqual(request);
      }
      expect(a.slug).not.toBe(b.slug);
      expect(await store.getOrder(a.slug)).toEqual(a);
      expect(await store.getOrder('doesnotexist')).toBeNull();
    });

    it('leaves an order leased to another runner alone until the lease lapses; its own runner takes it at once', async () => {
      const ca = await store.insertCa(newCa());
      const alice = await user();
      const soon = new Date(Date.now() + 60_000);
      const leased = await store.createOrder({
        caId: ca.id,
        userId: alice.id,
        request: signRequest(),
        lease: { owner: 'a', expires: soon },
      });
      const lapsed = await store.createOrder({
        caId: ca.id,
        userId: alice.id,
        request: signRequest(),
        lease: { owner: 'a', expires: new Date(Date.now() - 1000) },
      });
      const free = await store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest() });
      expect(leased).toMatchObject({ leaseOwner: 'a', leaseExpires: soon });
      const batch = <S extends Store>(s: S) => {
        if (!hasBatchOrders(s)) throw new Error('the knex store has batch orders');
        return s;
      };
      const ids = (orders: { id: number }[]) => orders.map((o) => o.id);
      expect(ids(await batch(store).listPendingOrders(10, 'b'))).toEqual([lapsed.id, free.id]);
      expect(ids(await batch(store).listPendingOrders(10))).toEqual([lapsed.id, free.id]);
      expect(ids(await batch(store).listPendingOrders(10, 'a'))).toEqual([leased.id, lapsed.id, free.id]);
      expect(await store.transaction((tx) => batch(tx).claimOrdersById([leased.id, free.id], 'b'))).toEqual([free.id]);
      expect(await store.transaction((tx) => batch(tx).claimOrdersById([leased.id], 'a'))).toEqual([leased.id]);
      expect(ids(await store.transaction((tx) => tx.claimPendingOrders(10, 'b')))).toEqual([lapsed.id, free.id]);
      expect(ids(await store.transaction((tx) => tx.claimPendingOrders(1, 'a')))).toEqual([leased.id]);
    });

    it('claims pending orders oldest first inside a transaction and marks them issued or failed', async () => {
      const ca = await store.insertCa(newCa());
      const alice = await user();
      const orders = [];
      for (let i = 0; i < 3; i++) orders.push(await store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest() }));

      const claimed = await store.transaction((tx) => tx.claimPendingOrders(2));
      expect(claimed.map((o) => o.id)).toEqual([orders[0].id, orders[1].id]);

      const cert = await store.insertCertificate(newCertificate(ca.id));
      const issued = await store.markOrderIssued(orders[0].id, cert.id);
      expect(issued).toMatchObject({ status: 'issued', certificateId: cert.id, certificateSerial: cert.serial, error: null });
      expect(await store.getOrder(orders[0].slug)).toEqual(issued);

      const failed = await store.markOrderFailed(orders[1].id, 'Could not sign certificate.');
      expect(failed).toMatchObject({ status: 'failed', error: 'Could not sign certificate.', certificateSerial: null });

      const rest = await store.transaction((tx) => tx.claimPendingOrders(10));
      expect(rest.map((o) => o.id)).toEqual([orders[2].id]);

      await expect(store.markOrderIssued(9999, cert.id)).rejects.toBeInstanceOf(StoreNotFoundError);
      await expect(store.markOrderFailed(9999, 'x')).rejects.toBeInstanceOf(StoreNotFoundError);
    });

    it('writes orders of concurrent callers with one INSERT, each caller getting its own order as stored', async () => {
      const ca = await store.insertCa(newCa());
      const alice = await user();
      const bob = await user('bob');
      const inserts: string[] = [];
      const onQuery = (q: { sql: string }) => {
        if (/^insert into "ca_api_orders"/i.test(q.sql)) inserts.push(q.sql);
      };
      db.knex.on('query', onQuery);
      try {
        const requests = Array.from({ length: 20 }, (_, i) => ({ ...signRequest(), profile: `p${i}` }));
        const orders = await Promise.all(
          requests.map((request, i) => store.createOrder({ caId: ca.id, userId: i % 2 ? bob.id : alice.id, request })),
        );
        expect(inserts).toHaveLength(1);
        expect(new Set(orders.map((o) => o.slug)).size).toBe(20);
        for (const [i, order] of orders.entries()) {
          expect(order.request.profile).toBe(`p${i}`);
          expect(order.userId).toBe(i % 2 ? bob.id : alice.id);
          expect(await store.getOrder(order.slug)).toEqual(order); // what the caller got is what is stored
        }
      } finally {
        db.knex.off('query', onQuery);
      }
    });

    it('a bad order in a group fails only its own caller', async () => {
      const ca = await store.insertCa(newCa());
      const alice = await user();
      const results = await Promise.allSettled([
        store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest() }),
        store.createOrder({ caId: ca.id + 999, userId: alice.id, request: signRequest() }), // no such CA
        store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest() }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const stored = await db.knex('ca_api_orders').count<{ count: string | number }[]>('* as count');
      expect(Number(stored[0].count)).toBe(2);
    });

    it('leaves orders leased to another instance alone until the lease expires', async () => {
      const ca = await store.insertCa(newCa());
      const alice = await user();
      const held = await store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest() });
      const lapsed = await store.createOrder({ caId: ca.id, userId: alice.id, request: signRequest() });
      await db
        .knex('ca_api_orders')
        .where({ id: held.id })
        .update({ lease_owner: 'other', lease_expires: new Date(Date.now() + DAY) });
      await db
        .knex('ca_api_orders')
        .where({ id: lapsed.id })
        .update({ lease_owner: 'gone', lease_expires: new Date(Date.now() - DAY) });
      const claimed = await store.transaction((tx) => tx.claimPendingOrders(10));
      expect(claimed.map((o) => o.id)).toEqual([lapsed.id]);
      expect((await store.getOrder(held.slug))?.leaseOwner).toBe('other');
    });
  });

  describe('users', () => {
    it('creates, finds and reads back users with their permissions', async () => {
      const created = await store.createUser('alice', '$2b$hash', ['view_certificate', 'sign_certificate']);
      expect(typeof created.id).toBe('number');
      expect(created.permissions).toEqual(['sign_certificate', 'view_certificate']);
      const found = await store.findUser('alice');
      expect(found).toEqual(created);
      expect(await store.getUserById(created.id)).toEqual(created);
      expect(await store.findUser('bob')).toBeNull();
      expect(await store.getUserById(9999)).toBeNull();
    });

    it('refuses duplicate usernames with a typed conflict and leaves no partial rows', async () => {
      await store.createUser('alice', 'h', ['view_certificate']);
      await expect(store.createUser('alice', 'h2', [...ALL_PERMISSIONS])).rejects.toMatchObject({
        constructor: StoreConflictError,
        entity: 'user',
        field: 'username',
      });
      const [{ n }] = await db.knex('ca_api_user_permissions').count('* as n');
      expect(Number(n)).toBe(1);
    });

    it('updates password and permissions independently and bumps updated', async () => {
      const alice = await store.createUser('alice', 'old', ['view_certificate']);
      const pw = await store.updateUser(alice.id, { passwordHash: 'new' });
      expect(pw).toMatchObject({ passwordHash: 'new', permissions: ['view_certificate'] });
      expect(pw.updated.getTime()).toBeGreaterThanOrEqual(alice.updated.getTime());
      const perms = await store.updateUser(alice.id, { permissions: [...ALL_PERMISSIONS].reverse() });
      expect(perms).toMatchObject({ passwordHash: 'new', permissions: [...ALL_PERMISSIONS] });
      const none = await store.updateUser(alice.id, { permissions: [] });
      expect(none.permissions).toEqual([]);
      expect(await store.findUser('alice')).toEqual(none);
      await expect(store.updateUser(9999, { passwordHash: 'x' })).rejects.toBeInstanceOf(StoreNotFoundError);
    });
  });

  describe('transactions', () => {
    it('commits all changes of a successful transaction', async () => {
      const [ca, cert] = await store.transaction(async (tx) => {
        const ca = await tx.insertCa(newCa());
        return [ca, await tx.insertCertificate(newCertificate(ca.id))] as const;
      });
      expect(await store.getCa(ca.id)).not.toBeNull();
      expect(await store.findCertificate(ca.id, cert.serial)).not.toBeNull();
    });

    it('rolls back every change when the function throws', async () => {
      await expect(
        store.transaction(async (tx) => {
          const ca = await tx.insertCa(newCa({ name: 'rolled-back' }));
          await tx.insertCertificate(newCertificate(ca.id));
          await tx.createUser('ghost', 'h', ['view_certificate']);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await store.listCas()).toEqual([]);
      expect(await store.findUser('ghost')).toBeNull();
      const [{ n }] = await db.knex('ca_api_certificates').count('* as n');
      expect(Number(n)).toBe(0);
    });

    it('rolls back after a conflict inside a transaction', async () => {
      const existing = await store.insertCa(newCa({ name: 'existing' }));
      await expect(
        store.transaction(async (tx) => {
          await tx.insertCa(newCa({ name: 'new-one' }));
          await tx.insertCa(newCa({ name: 'dup', serial: existing.serial }));
        }),
      ).rejects.toBeInstanceOf(StoreConflictError);
      expect((await store.listCas()).map((c) => c.name)).toEqual(['existing']);
    });

    it('reuses the open transaction for nested calls', async () => {
      await expect(
        store.transaction(async (tx) => {
          await tx.transaction(async (inner) => {
            expect(inner).toBe(tx);
            await inner.insertCa(newCa({ name: 'nested' }));
          });
          // Multi-row methods join the transaction too instead of committing on their own.
          await tx.createUser('nested-user', 'h', ['view_certificate']);
          throw new Error('undo all');
        }),
      ).rejects.toThrow('undo all');
      expect(await store.findCaByName('nested')).toBeNull();
      expect(await store.findUser('nested-user')).toBeNull();
    });
  });
});
