/**
 * API users (docs/COMPATIBILITY.md §1.3, §4.4): the equivalent of django-ca's
 * `create_api_user(username, password, view_certificateauthority=True, ...)`, plus per-CA grants
 * (docs/reference/differences.md D23): a permission may hold for every CA, as upstream, or for named CAs only.
 */
import * as bcrypt from 'bcryptjs';
import type { CaGrant, Permission, Store, UserRecord } from '../ports';
import { normaliseSerial } from '../x509/serial-format';
import { CaError } from '../ca/errors';

/**
 * Each flag: `false` withholds the permission, a list of CA serials grants it for those CAs only, and
 * `true` or absent grants it — for the CAs of `cas` when given, else for every CA.
 */
export interface ApiUserPermissions {
  viewCertificateAuthority?: boolean | readonly string[];
  changeCertificateAuthority?: boolean | readonly string[];
  signCertificate?: boolean | readonly string[];
  viewCertificate?: boolean | readonly string[];
  revokeCertificate?: boolean | readonly string[];
  /** Signing in to the admin interface at all (global; granted only when `true`: machine users stay out). */
  useAdmin?: boolean;
  /** The admin interface's audit log (global; granted only when `true`). */
  viewAuditLog?: boolean;
  /** The admin interface's webhook management (global; granted only when `true`). */
  manageWebhooks?: boolean;
  /** The admin interface's user management (global; granted only when `true`; it can grant anything). */
  manageUsers?: boolean;
  /** Serials (colons, case and leading zeros ignored) of the only CAs the granted permissions hold for. */
  cas?: readonly string[];
}

export interface CreateApiUserOptions {
  /** bcrypt cost factor; 10 by default (tests lower it to stay fast). */
  bcryptCost?: number;
}

const FLAG_TO_PERMISSION: readonly [Exclude<keyof ApiUserPermissions, 'cas'>, Permission][] = [
  ['viewCertificateAuthority', 'view_certificateauthority'],
  ['changeCertificateAuthority', 'change_certificateauthority'],
  ['signCertificate', 'sign_certificate'],
  ['viewCertificate', 'view_certificate'],
  ['revokeCertificate', 'revoke_certificate'],
];

export const DEFAULT_BCRYPT_COST = 10;

/**
 * Create a user with a bcrypt password hash and the permissions whose flag is not `false` (all five,
 * for every CA, by default, as upstream). The user and its grants appear together or not at all.
 */
export async function createApiUser(
  store: Store,
  username: string,
  password: string,
  permissions: ApiUserPermissions = {},
  options: CreateApiUserOptions = {},
): Promise<UserRecord> {
  if (!username) throw new CaError('invalid', 'The username must not be empty.');
  if (!password) throw new CaError('invalid', 'The password must not be empty.');
  if (await store.findUser(username)) throw new CaError('conflict', `${username}: User already exists.`);
  const { global, caGrants } = await resolveGrants(store, permissions);
  const hash = await bcrypt.hash(password, options.bcryptCost ?? DEFAULT_BCRYPT_COST);
  if (!caGrants.length) return store.createUser(username, hash, global);
  return store.transaction(async (tx) => {
    const user = await tx.createUser(username, hash, global);
    return updateGrants(tx, user.id, { caGrants });
  });
}

/**
 * Replace a user's permissions and grants with those of `permissions` (same rules as
 * `createApiUser`: everything not withheld, for every CA unless limited). Takes effect on the user's
 * next request in this process, and in other processes within their user cache's TTL.
 */
export async function setApiUserPermissions(store: Store, username: string, permissions: ApiUserPermissions): Promise<UserRecord> {
  const user = await findApiUser(store, username);
  const { global, caGrants } = await resolveGrants(store, permissions);
  return store.transaction((tx) => updateGrants(tx, user.id, { permissions: global, caGrants }));
}

/**
 * Give a user a new password, hashed as `createApiUser` hashes (bcrypt, same cost). The user's
 * `updated` stamp moves with it, so credentials verified under the old password stop counting: at
 * once in this process (the store's change events), within the user cache's TTL in others.
 */
export async function setApiUserPassword(
  store: Store,
  username: string,
  password: string,
  options: CreateApiUserOptions = {},
): Promise<UserRecord> {
  const user = await findApiUser(store, username);
  if (!password) throw new CaError('invalid', 'The password must not be empty.');
  const hash = await bcrypt.hash(password, options.bcryptCost ?? DEFAULT_BCRYPT_COST);
  return store.updateUser(user.id, { passwordHash: hash });
}

/** Every API user with its permissions and per-CA grants, by username (code-unit order, whatever the database's collation). */
export async function listApiUsers(store: Store): Promise<UserRecord[]> {
  const users = await store.listUsers();
  return users.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
}

/**
 * Delete an API user, its grants and the sign orders it placed (`UserAdministration.deleteUser`);
 * returns the user as it was and how many orders went with it. It can no longer log in: at once in
 * this process, within the user cache's TTL in others.
 */
export async function deleteApiUser(store: Store, username: string): Promise<{ user: UserRecord; orders: number }> {
  const user = await findApiUser(store, username);
  const { orders } = await store.deleteUser(user.id);
  return { user, orders };
}

/** The user named `username`, or the not-found error the commands print (`<name>: User not found.`). */
export async function findApiUser(store: Pick<Store, 'findUser'>, username: string): Promise<UserRecord> {
  const user = await store.findUser(username);
  if (!user) throw new CaError('not-found', `${username}: User not found.`);
  return user;
}

/** Write the grants; refuse (rolling the caller's transaction back) a store that drops per-CA ones. */
async function updateGrants(tx: Store, userId: number, patch: { permissions?: Permission[]; caGrants: CaGrant[] }): Promise<UserRecord> {
  const updated = await tx.updateUser(userId, patch);
  const kept = new Set((updated.caGrants ?? []).map(grantKey));
  if (patch.caGrants.some((g) => !kept.has(grantKey(g)))) {
    // Without this the user would silently hold none of its limited permissions.
    throw new CaError('invalid', 'This store does not keep per-CA grants (UserRecord.caGrants); nothing was changed.');
  }
  return updated;
}

const grantKey = (g: CaGrant): string => `${g.permission} ${g.caSerial}`;

/** Flags → permissions for every CA and grants on named CAs, every serial checked against the store. */
async function resolveGrants(store: Store, permissions: ApiUserPermissions): Promise<{ global: Permission[]; caGrants: CaGrant[] }> {
  const defaultCas = permissions.cas === undefined ? undefined : await existingSerials(store, permissions.cas, 'cas');
  const global: Permission[] = [];
  const caGrants: CaGrant[] = [];
  for (const [flag, permission] of FLAG_TO_PERMISSION) {
    const value = permissions[flag];
    if (value === false) continue;
    const serials = Array.isArray(value) ? await existingSerials(store, value, flag) : defaultCas;
    if (serials === undefined) global.push(permission);
    else caGrants.push(...serials.map((caSerial) => ({ permission, caSerial })));
  }
  if (permissions.useAdmin === true) global.push('use_admin');
  if (permissions.viewAuditLog === true) global.push('view_auditlog');
  if (permissions.manageWebhooks === true) global.push('manage_webhooks');
  if (permissions.manageUsers === true) global.push('manage_users');
  return { global, caGrants };
}

/** The CAs' serials as stored; an empty list, a malformed serial or an unknown CA is refused. */
async function existingSerials(store: Pick<Store, 'findCaBySerial'>, given: readonly string[], field: string): Promise<string[]> {
  if (given.length === 0) throw new CaError('invalid', `${field}: name at least one certificate authority (or withhold the permission).`);
  const serials: string[] = [];
  for (const text of given) {
    const serial = normaliseSerial(text);
    if (serial === null) throw new CaError('invalid', `${text}: not a serial (hex digits, optionally with colons).`);
    const ca = await store.findCaBySerial(serial);
    if (!ca) throw new CaError('not-found', `${text}: Certificate authority not found.`);
    if (!serials.includes(ca.serial)) serials.push(ca.serial);
  }
  return serials;
}
