/** Queries on `ca_api_users` and their global permissions in `ca_api_user_permissions`. */
import type { Knex } from 'knex';
import { ALL_PERMISSIONS, StoreNotFoundError, type Permission, type UserRecord } from '../../../lib/ports';
import { mappingErrors } from './errors';
import { userFromRow, type Row } from './rows';
import { toNumber } from './values';
import { TABLES } from './tables';

const USERS = TABLES.users;
const PERMISSIONS = TABLES.permissions;

export function createUser(db: Knex, username: string, passwordHash: string, permissions: Permission[]): Promise<UserRecord> {
  return mappingErrors(async () => {
    const now = new Date();
    const [row] = await db(USERS).insert({ username, password_hash: passwordHash, created: now, updated: now }).returning('*');
    const id = toNumber((row as Row).id);
    await insertPermissions(db, id, permissions);
    return userFromRow(row as Row, normalise(permissions));
  });
}

export async function findUser(db: Knex, username: string): Promise<UserRecord | null> {
  const row = (await db(USERS).where({ username }).first()) as Row | undefined;
  return row ? userFromRow(row, await permissionsOf(db, toNumber(row.id))) : null;
}

export async function getUserById(db: Knex, id: number): Promise<UserRecord | null> {
  const row = (await db(USERS).where({ id }).first()) as Row | undefined;
  return row ? userFromRow(row, await permissionsOf(db, id)) : null;
}

/** Always bumps `updated`: credential caches use it to notice a change. */
export async function updateUser(db: Knex, id: number, patch: { passwordHash?: string; permissions?: Permission[] }): Promise<UserRecord> {
  const columns: Row = { updated: new Date() };
  if (patch.passwordHash !== undefined) columns.password_hash = patch.passwordHash;
  const [row] = await db(USERS).where({ id }).update(columns).returning('*');
  if (!row) throw new StoreNotFoundError('user', id);
  if (patch.permissions !== undefined) {
    await db(PERMISSIONS).where({ user_id: id }).whereNull('ca_id').delete();
    await insertPermissions(db, id, patch.permissions);
  }
  return userFromRow(row as Row, await permissionsOf(db, id));
}

async function insertPermissions(db: Knex, userId: number, permissions: Permission[]): Promise<void> {
  const unique = normalise(permissions);
  if (unique.length) {
    await db(PERMISSIONS).insert(unique.map((permission) => ({ user_id: userId, permission, ca_id: null })));
  }
}

/** Global grants only: per-CA grants (ca_id set) are not part of today's model. */
async function permissionsOf(db: Knex, userId: number): Promise<Permission[]> {
  const rows = (await db(PERMISSIONS).where({ user_id: userId }).whereNull('ca_id').select('permission')) as Row[];
  return normalise(rows.map((r) => String(r.permission) as Permission));
}

/** Deduplicated, in the canonical order of ALL_PERMISSIONS (unknown codenames kept, at the end). */
function normalise(permissions: Permission[]): Permission[] {
  const rank = (p: Permission) => {
    const i = ALL_PERMISSIONS.indexOf(p);
    return i === -1 ? ALL_PERMISSIONS.length : i;
  };
  return [...new Set(permissions)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
