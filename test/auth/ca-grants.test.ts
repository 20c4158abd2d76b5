/**
 * Per-CA grants (docs/reference/differences.md D23) below the HTTP layer, on every test database: how the knex store keeps
 * them (`UserRecord.caGrants`, `updateUser({ caGrants })`), what the default permission checker answers
 * with and without a CA, how a grant changed behind the store's back reaches a cached checker (the
 * user cache's TTL, as for permissions), `createApiUser` refusing a store that would drop grants, and
 * `listVisibleCas` narrowing the CA list through a host's checker that only has `hasPermission`.
 */
import { randomBytes } from 'crypto';
import { storePermissionChecker } from '../../adapters/auth/store-permissions';
import { UserCache } from '../../adapters/auth/user-cache';
import { defaultKeyBackend } from '../../adapters/keys';
import { TABLES } from '../../adapters/store/knex/tables';
import { initCa } from '../../lib/ca/authorities';
import { createApiUser } from '../../lib/accounts/users';
import { listVisibleCas } from '../../lib/api/visibility';
import { StoreNotFoundError, type CaRecord, type PermissionChecker, type Store } from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';

describe.each(testDatabaseTargets())('$name', (target) => {
  let db: TestDatabase;
  let web: CaRecord;
  let root: CaRecord;
  beforeAll(async () => {
    db = await openTestDatabase(target);
    const base = {
      store: db.store,
      keyBackends: { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) },
      keyType: 'EC' as const,
    };
    root = await initCa({ ...base, name: 'root', subject: [{ oid: 'CN', value: 'Root' }], pathLength: 1, apiEnabled: true });
    web = await initCa({ ...base, name: 'web', subject: [{ oid: 'CN', value: 'Web' }], parent: root, apiEnabled: true, expiresDays: 30 });
  });
  afterAll(() => db?.close());

  describe('knex store', () => {
    test('grants round-trip by serial, deduplicated and in canonical order, beside the global permissions', async () => {
      const user = await db.store.createUser('grants-rt', 'h', ['view_certificate']);
      expect(user.caGrants).toEqual([]);
      const updated = await db.store.updateUser(user.id, {
        caGrants: [
          { permission: 'sign_certificate', caSerial: web.serial },
          { permission: 'view_certificateauthority', caSerial: web.serial },
          { permission: 'sign_certificate', caSerial: web.serial },
          { permission: 'view_certificateauthority', caSerial: root.serial },
        ],
      });
      const bySerial = [root.serial, web.serial].sort();
      const expected = [
        ...bySerial.map((caSerial) => ({ permission: 'view_certificateauthority', caSerial })),
        { permission: 'sign_certificate', caSerial: web.serial },
      ];
      expect(updated.caGrants).toEqual(expected);
      expect(updated.permissions).toEqual(['view_certificate']);
      expect((await db.store.findUser('grants-rt'))?.caGrants).toEqual(expected);
      expect((await db.store.getUserById(user.id))?.caGrants).toEqual(expected);

      // Stored by CA id (a foreign key to the CA row), one row per grant.
      const rows = (await db.knex(TABLES.permissions).where({ user_id: user.id }).whereNotNull('ca_id')) as { ca_id: number }[];
      expect(rows.map((r) => Number(r.ca_id)).sort()).toEqual([root.id, web.id, web.id].sort());

      // Each list is replaced on its own: a permissions patch keeps the grants, and the reverse.
      expect((await db.store.updateUser(user.id, { permissions: [] })).caGrants).toEqual(expected);
      const cleared = await db.store.updateUser(user.id, { caGrants: [] });
      expect(cleared).toMatchObject({ permissions: [], caGrants: [] });
      expect(await db.knex(TABLES.permissions).where({ user_id: user.id })).toEqual([]);
    });

    test('a grant on an unknown serial is a StoreNotFoundError and changes nothing', async () => {
      const user = await db.store.createUser('grants-unknown', 'h', []);
      await db.store.updateUser(user.id, { caGrants: [{ permission: 'sign_certificate', caSerial: web.serial }] });
      const before = await db.store.getUserById(user.id);
      const attempt = db.store.updateUser(user.id, {
        permissions: ['view_certificate'],
        caGrants: [
          { permission: 'sign_certificate', caSerial: root.serial },
          { permission: 'sign_certificate', caSerial: 'ABCDEF0123' },
        ],
      });
      await expect(attempt).rejects.toBeInstanceOf(StoreNotFoundError);
      await expect(attempt).rejects.toThrow('ABCDEF0123');
      expect(await db.store.getUserById(user.id)).toEqual(before);
    });
  });

  describe('storePermissionChecker', () => {
    test('a CA grant answers for its CA; without a CA, any grant answers; caSerialsFor lists the CAs', async () => {
      const user = await db.store.createUser('grants-checker', 'h', ['view_certificate']);
      await db.store.updateUser(user.id, { caGrants: [{ permission: 'sign_certificate', caSerial: web.serial }] });
      const checker = storePermissionChecker(db.store);
      const ask = (p: Parameters<PermissionChecker['hasPermission']>[1], caSerial?: string) =>
        checker.hasPermission(user, p, caSerial === undefined ? undefined : { caSerial });
      expect(await ask('sign_certificate', web.serial)).toBe(true);
      expect(await ask('sign_certificate', root.serial)).toBe(false);
      expect(await ask('sign_certificate')).toBe(true);
      expect(await ask('revoke_certificate', web.serial)).toBe(false);
      expect(await ask('revoke_certificate')).toBe(false);
      expect(await ask('view_certificate', root.serial)).toBe(true); // global
      expect(await checker.caSerialsFor?.(user, 'sign_certificate')).toEqual(new Set([web.serial]));
      expect(await checker.caSerialsFor?.(user, 'view_certificate')).toBe('all');
      expect(await checker.caSerialsFor?.(user, 'revoke_certificate')).toEqual(new Set());
      expect(await checker.caSerialsFor?.({ id: 999_999, username: 'gone' }, 'view_certificate')).toEqual(new Set());
    });

    test('a grant changed behind the store (another process) reaches a cached checker after the TTL', async () => {
      const user = await db.store.createUser('grants-ttl', 'h', []);
      await db.store.updateUser(user.id, { caGrants: [{ permission: 'sign_certificate', caSerial: web.serial }] });
      let clock = 0;
      // The store's reads without its change events: what a cache in another process sees.
      const elsewhere: Pick<Store, 'findUser' | 'getUserById'> = {
        findUser: (name) => db.store.findUser(name),
        getUserById: (id) => db.store.getUserById(id),
      };
      const users = new UserCache(elsewhere, { ttlMs: 2000, now: () => clock });
      const checker = storePermissionChecker(db.store, { users });
      expect(await checker.hasPermission(user, 'sign_certificate', { caSerial: web.serial })).toBe(true);
      await db.store.updateUser(user.id, { caGrants: [{ permission: 'sign_certificate', caSerial: root.serial }] });
      clock = 1999;
      expect(await checker.hasPermission(user, 'sign_certificate', { caSerial: web.serial })).toBe(true); // still cached
      clock = 2001;
      expect(await checker.hasPermission(user, 'sign_certificate', { caSerial: web.serial })).toBe(false);
      expect(await checker.hasPermission(user, 'sign_certificate', { caSerial: root.serial })).toBe(true);
      users.close();
    });
  });

  test('createApiUser refuses a store that drops per-CA grants, and leaves no user behind', async () => {
    const forgetful = (s: Store): Store =>
      new Proxy(s, {
        get(t, p, r) {
          if (p === 'updateUser') return (id: number, patch: object) => t.updateUser(id, { ...patch, caGrants: undefined });
          if (p === 'transaction') return <T>(fn: (tx: Store) => Promise<T>) => t.transaction((tx) => fn(forgetful(tx)));
          return Reflect.get(t, p, r) as unknown;
        },
      });
    await expect(
      createApiUser(forgetful(db.store), 'grants-dropped', 'pw', { cas: [web.serial] }, { bcryptCost: 4 }),
    ).rejects.toMatchObject({ code: 'invalid', message: expect.stringContaining('per-CA grants') });
    expect(await db.store.findUser('grants-dropped')).toBeNull();
    // Global permissions need no grants: such a store still creates those users.
    expect((await createApiUser(forgetful(db.store), 'grants-global', 'pw', {}, { bcryptCost: 4 })).permissions).toHaveLength(5);
  });

  test("listVisibleCas asks a host's checker without caSerialsFor about each CA", async () => {
    const asked: (string | undefined)[] = [];
    const hostChecker: PermissionChecker = {
      async hasPermission(_user, permission, scope) {
        asked.push(scope?.caSerial);
        return permission === 'view_certificateauthority' && scope?.caSerial === web.serial;
      },
    };
    const viewer = { user: { id: 1, username: 'host-user' }, permissions: hostChecker };
    const listed = await listVisibleCas(db.store, { includeExpired: false, now: new Date(), viewer });
    expect(listed.map((ca) => ca.serial)).toEqual([web.serial]);
    expect(asked.sort()).toEqual([root.serial, web.serial].sort());
    // Without a viewer, every visible CA, as before.
    expect((await listVisibleCas(db.store, { includeExpired: false, now: new Date() })).map((ca) => ca.name)).toEqual(['root', 'web']);
  });
});
