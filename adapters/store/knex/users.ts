/**
 * Queries on `ca_api_users` and their grants in `ca_api_user_permissions`: a row with `ca_id` null
 * holds its permission for every CA, a row with `ca_id` set for that CA only (docs/reference/differences.md D23).
 *
 * Grants name their CA by id in the table (a foreign key: a grant cannot point at a CA that does not
 * exist, and goes with it), and by serial in `UserRecord.caGrants`: a CA's serial never changes, so a
 * cached user row stays exact whatever happens to the CA rows, and the permission checker compares it
 * with the path's serial without reading the CA.
 *
 * Each write records its events (transaction-events.ts): `user.created`, `user.deleted`, and for an
 * update (which always moves `updated`) `user.password_changed` when the password hash changed, else
 * `user.permissions_changed` with the permissions as they now are.
 */
import type { Knex } from 'knex';
import { ALL_PERMISSIONS, StoreNotFoundError, type CaGrant, type Permission, type UserPatch, type UserRecord } from '../../../lib/ports';
import { mappingErrors } from './errors';
import { updateComparing } from './row-changes';
import { userFromRow, type Row } from './rows';
import type { RecordEvents } from './transaction-events';
import { fromJson, toNumber } from './values';
import { TABLES } from './tables';

const USERS = TABLES.users;
const PERMISSIONS = TABLES.permissions;
const CAS = TABLES.cas;

export function createUser(
  db: Knex,
  username: string,
  passwordHash: string,
  permissions: Permission[],
  record: RecordEvents,
): Promise<UserRecord> {
  return mappingErrors(async () => {
    const now = new Date();
    const [row] = await db(USERS).insert({ username, password_hash: passwordHash, created: now, updated: now }).returning('*');
    const id = toNumber((row as Row).id);
    await insertPermissions(db, id, permissions);
    record({ type: 'user.created', data: { username: String((row as Row).username) } });
    return { ...userFromRow(row as Row, normalise(permissions)), caGrants: [] };
  });
}

export async function findUser(db: Knex, username: string): Promise<UserRecord | null> {
  const row = (await db(USERS).where({ username }).first()) as Row | undefined;
  return row ? withGrants(db, row) : null;
}

export async function getUserById(db: Knex, id: number): Promise<UserRecord | null> {
  const row = (await db(USERS).where({ id }).first()) as Row | undefined;
  return row ? withGrants(db, row) : null;
}

/** Every user with its grants, by id: two queries whatever the number of users. */
export async function listUsers(db: Knex): Promise<UserRecord[]> {
  const rows = (await db(USERS).orderBy('id')) as Row[];
  const grants = (await db(`${PERMISSIONS} as p`)
    .leftJoin(`${CAS} as c`, 'c.id', 'p.ca_id')
    .select('p.user_id', 'p.permission', 'c.serial')) as Row[];
  const byUser = new Map<number, Row[]>();
  for (const g of grants) {
    const id = toNumber(g.user_id);
    const list = byUser.get(id);
    if (list) list.push(g);
    else byUser.set(id, [g]);
  }
  return rows.map((row) => withGrantRows(row, byUser.get(toNumber(row.id)) ?? []));
}

/**
 * Delete a user; its permission rows and its orders go with it (ON DELETE CASCADE, migration 0001).
 * Run inside a transaction: the count and the delete see the same orders.
 */
export async function deleteUser(db: Knex, id: number, record: RecordEvents): Promise<{ orders: number }> {
  const counted = (await db(TABLES.orders).where({ user_id: id }).count({ n: '*' }).first()) as Row | undefined;
  const [deleted] = (await db(USERS).where({ id }).delete().returning(['id', 'username'])) as Row[];
  if (!deleted) throw new StoreNotFoundError('user', id);
  record({ type: 'user.deleted', data: { username: String(deleted.username), user_id: toNumber(deleted.id) } });
  return { orders: toNumber(counted?.n ?? 0) };
}

/** Always bumps `updated`: credential caches use it to notice a change. Run inside a transaction. */
export async function updateUser(db: Knex, id: number, patch: UserPatch, record: RecordEvents): Promise<UserRecord> {
  const columns: Row = { updated: new Date() };
  if (patch.passwordHash !== undefined) columns.password_hash = patch.passwordHash;
  const changed = await updateComparing(db, USERS, { id }, columns, {
    updated: 'n.updated IS DISTINCT FROM o.updated',
    password: 'n.password_hash IS DISTINCT FROM o.password_hash',
  });
  if (!changed) throw new StoreNotFoundError('user', id);
  const { row, change } = changed;
  if (patch.permissions !== undefined) {
    await db(PERMISSIONS).where({ user_id: id }).whereNull('ca_id').delete();
    await insertPermissions(db, id, patch.permissions);
  }
  if (patch.caGrants !== undefined) {
    await db(PERMISSIONS).where({ user_id: id }).whereNotNull('ca_id').delete();
    await insertCaGrants(db, id, patch.caGrants);
  }
  if (change.updated) {
    const user = { username: String(row.username), user_id: id };
    if (change.password) record({ type: 'user.password_changed', data: user });
    else record({ type: 'user.permissions_changed', data: { ...user, permissions: await grantsAsEvent(db, id) } });
  }
  return withGrants(db, row);
}

/** A user's grants as `user.permissions_changed` lists them: `{ permission, ca }` (the CA's serial, null for every CA), ordered by the database. */
async function grantsAsEvent(db: Knex, userId: number): Promise<unknown[]> {
  const result = (await db.raw(
    `SELECT coalesce(json_agg(json_build_object('permission', p.permission, 'ca', c.serial)
              ORDER BY p.permission, c.serial NULLS FIRST), '[]'::json) AS permissions
       FROM ?? p LEFT JOIN ?? c ON c.id = p.ca_id WHERE p.user_id = ?`,
    [PERMISSIONS, CAS, userId],
  )) as { rows: Row[] };
  return fromJson<unknown[]>(result.rows[0].permissions);
}

async function insertPermissions(db: Knex, userId: number, permissions: Permission[]): Promise<void> {
  const unique = normalise(permissions);
  if (unique.length) {
    await db(PERMISSIONS).insert(unique.map((permission) => ({ user_id: userId, permission, ca_id: null })));
  }
}

async function insertCaGrants(db: Knex, userId: number, grants: CaGrant[]): Promise<void> {
  const unique = normaliseGrants(grants);
  if (!unique.length) return;
  const serials = [...new Set(unique.map((g) => g.caSerial))];
  const rows = (await db(CAS).whereIn('serial', serials).select('id', 'serial')) as Row[];
  const idOf = new Map(rows.map((r) => [String(r.serial), toNumber(r.id)]));
  const unknown = serials.find((s) => !idOf.has(s));
  if (unknown !== undefined) {
    // Addressed by serial, so there is no id to name: 0, with the serial in the message.
    const error = new StoreNotFoundError('ca', 0);
    error.message = `no certificate authority with serial ${unknown}`;
    throw error;
  }
  await db(PERMISSIONS).insert(unique.map((g) => ({ user_id: userId, permission: g.permission, ca_id: idOf.get(g.caSerial) })));
}

/** The user row with its global permissions and per-CA grants, read in one query. */
async function withGrants(db: Knex, row: Row): Promise<UserRecord> {
  const rows = (await db(`${PERMISSIONS} as p`)
    .leftJoin(`${CAS} as c`, 'c.id', 'p.ca_id')
    .where('p.user_id', toNumber(row.id))
    .select('p.permission', 'c.serial')) as Row[];
  return withGrantRows(row, rows);
}

/** A user row and its permission rows (`permission`, the CA's `serial` or null) as a record. */
function withGrantRows(row: Row, rows: readonly Row[]): UserRecord {
  const global: Permission[] = [];
  const caGrants: CaGrant[] = [];
  for (const r of rows) {
    const permission = String(r.permission) as Permission;
    if (r.serial === null || r.serial === undefined) global.push(permission);
    else caGrants.push({ permission, caSerial: String(r.serial) });
  }
  return { ...userFromRow(row, normalise(global)), caGrants: normaliseGrants(caGrants) };
}

const rank = (p: Permission): number => {
  const i = (ALL_PERMISSIONS as readonly Permission[]).indexOf(p);
  return i === -1 ? ALL_PERMISSIONS.length : i;
};

/** Deduplicated, in the canonical order of ALL_PERMISSIONS (unknown codenames kept, at the end). */
function normalise(permissions: Permission[]): Permission[] {
  return [...new Set(permissions)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Deduplicated, by permission (canonical order) then serial. */
function normaliseGrants(grants: CaGrant[]): CaGrant[] {
  const seen = new Map<string, CaGrant>();
  for (const g of grants) seen.set(`${g.permission}\u0000${g.caSerial}`, { permission: g.permission, caSerial: g.caSerial });
  return [...seen.values()].sort(
    (a, b) => rank(a.permission) - rank(b.permission) || a.permission.localeCompare(b.permission) || cmp(a, b),
  );
}

const cmp = (a: CaGrant, b: CaGrant): number => (a.caSerial < b.caSerial ? -1 : a.caSerial > b.caSerial ? 1 : 0);
