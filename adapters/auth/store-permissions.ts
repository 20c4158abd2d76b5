/**
 * The default `PermissionChecker`: the permission list of the store's user row.
 *
 * Without `users` the row is read on every request (one indexed lookup). The router passes the
 * `UserCache` it shares with its authenticator: then the row comes from memory while fresh, a
 * permission changed through the store in this process takes effect on the next request (the
 * store's change event drops the entry), and one changed by another process within the cache's TTL.
 */
import type { ApiUser, Permission, PermissionChecker, Store } from '../../lib/ports';
import type { UserCache } from './user-cache';

export function storePermissionChecker(store: Pick<Store, 'getUserById'>, options: { users?: UserCache } = {}): PermissionChecker {
  const source = options.users ?? store;
  return {
    async hasPermission(user: ApiUser, permission: Permission): Promise<boolean> {
      const row = await source.getUserById(user.id);
      return row !== null && row.permissions.includes(permission);
    },
  };
}
