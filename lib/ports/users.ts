/**
 * Ports of users, authentication and authorization (lib/ports/index.ts re-exports them): who a request is,
 * what it may do — on every CA or on named CAs only (docs/reference/differences.md D23) — and the user rows a `Store` keeps.
 */

export interface ApiUser {
  id: number;
  username: string;
}

/**
 * The five permissions of the original API (Django codenames), and those of the admin interface
 * only (docs/guides/admin-interface.md), which are global and never granted by default.
 */
export type Permission = ApiPermission | AdminPermission;

export type ApiPermission =
  'view_certificateauthority' | 'change_certificateauthority' | 'sign_certificate' | 'view_certificate' | 'revoke_certificate';

/**
 * `use_admin`: sign in to the admin interface at all — without it a user is a machine user of the
 * REST API only, and the sign-in form refuses it as it refuses a wrong password.
 * `view_auditlog`: read and verify the audit log in the admin interface (it names every CA and user).
 * `manage_webhooks`: add, rotate, replay and remove webhook endpoints in the admin interface.
 * `manage_users`: create, change and delete users in the admin interface — it can grant anything,
 * so it makes its holder an administrator.
 */
export type AdminPermission = 'use_admin' | 'view_auditlog' | 'manage_webhooks' | 'manage_users';
export const ADMIN_PERMISSIONS: readonly AdminPermission[] = ['use_admin', 'view_auditlog', 'manage_webhooks', 'manage_users'];

/** The REST API's five, in the original's order. */
export const ALL_PERMISSIONS: readonly ApiPermission[] = [
  'view_certificateauthority',
  'change_certificateauthority',
  'sign_certificate',
  'view_certificate',
  'revoke_certificate',
];

/**
 * What a permission is asked about: `caSerial` (upper-case hex, no colons or leading zeros) wherever a
 * request concerns one CA. Without it (`GET /ca/`, the profiles) the question is "does the user hold
 * the permission for at least one CA" — a list is then narrowed with `caSerialsFor` (docs/reference/differences.md D23).
 */
export interface PermissionScope {
  caSerial?: string;
}

/** A permission held for one CA only (docs/reference/differences.md D23); a permission in `UserRecord.permissions` holds for all. */
export interface CaGrant {
  permission: Permission;
  /** The CA's serial, upper-case hex without colons or leading zeros (as `CaRecord.serial`). */
  caSerial: string;
}

/** Credentials → user, or null when they are wrong. Must do equal work for unknown users. */
export interface Authenticator {
  authenticate(username: string, password: string): Promise<ApiUser | null>;
}

export interface PermissionChecker {
  hasPermission(user: ApiUser, permission: Permission, scope?: PermissionScope): Promise<boolean>;
  /**
   * Optional: the CAs for which the user holds `permission` — `'all'` for a grant on every CA, else
   * their serials. `GET /ca/` shows only these; without this method it asks `hasPermission` per CA.
   */
  caSerialsFor?(user: ApiUser, permission: Permission): Promise<'all' | ReadonlySet<string>>;
}

// ---------------------------------------------------------------------------------------------------
// User rows of the Store (lib/ports/index.ts)

export interface UserRecord extends ApiUser {
  passwordHash: string;
  /** Permissions held for every CA. */
  permissions: Permission[];
  /** Permissions held for single CAs only (docs/reference/differences.md D23); absent: none (a store without per-CA grants). */
  caGrants?: CaGrant[];
  updated: Date;
}

/** What `Store.updateUser` may change; a list given replaces the stored one. */
export interface UserPatch {
  passwordHash?: string;
  permissions?: Permission[];
  /** Per-CA grants, by serial; a serial the store does not know is a `StoreNotFoundError('ca')`. */
  caGrants?: CaGrant[];
}

/**
 * Part of `Store`: the users as an operator manages them (`ca-admin list_api_users` and
 * `delete_api_user`). A password change needs none: it is `Store.updateUser` with a new hash.
 */
export interface UserAdministration {
  /** Every user with its permissions and per-CA grants, in any order. */
  listUsers(): Promise<UserRecord[]>;
  /**
   * Delete the user with its permissions and grants, and the sign orders it placed (an order names
   * its user; django-ca's orders go with their user too); returns how many orders went. Announced to
   * `onUserChanged` listeners once committed, like any change of the user (`getUserById` then answers
   * null). An unknown id is a `StoreNotFoundError('user')`.
   */
  deleteUser(id: number): Promise<{ orders: number }>;
}

/**
 * Part of `Store`: tell in-process caches at once when a user row changed (password,
 * permissions, per-CA grants, creation, deletion). Listeners run after the change is committed, so a
 * cache that re-reads on the notification sees the new row. Changes made by other processes are not reported: caches bound
 * that staleness with a TTL instead.
 */
export interface UserChangeEvents {
  /** Subscribe; returns the function that unsubscribes. */
  onUserChanged(listener: (userId: number) => void): () => void;
}
