/**
 * The default `PermissionChecker`: the permission list of the store's user row.
 *
 * Read on every request (one indexed lookup), so a revoked permission takes effect immediately, even
 * for credentials the authenticator still has cached.
 */
import type { ApiUser, Permission, PermissionChecker, Store } from '../../lib/ports';

export function storePermissionChecker(store: Pick<Store, 'getUserById'>): PermissionChecker {
  return {
    async hasPermission(user: ApiUser, permission: Permission): Promise<boolean> {
      const row = await store.getUserById(user.id);
      return row !== null && row.permissions.includes(permission);
    },
  };
}
