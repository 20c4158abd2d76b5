/**
 * The default `PermissionChecker`: the grants of the store's user row (docs/reference/differences.md D23).
 *
 * A permission in `permissions` holds for every CA; one in `caGrants` for the CA of that serial only.
 * Asked about one CA (`scope.caSerial`, every CA-scoped endpoint), either kind answers yes; asked
 * without a CA (`GET /ca/`, the profiles), a grant on any CA does — `caSerialsFor` then tells the CA
 * list which CAs to show. A CA the user holds no grant for is a 403 whether it exists or not, so a
 * limited user learns nothing about the others.
 *
 * Without `users` the row is read on every request (one indexed lookup). The router passes the
 * `UserCache` it shares with its authenticator: then the row comes from memory while fresh, a
 * permission or grant changed through the store in this process takes effect on the next request
 * (the store's change event drops the entry), and one changed by another process within the cache's
 * TTL. Grants name CAs by serial, which never changes: no CA change needs to reach this cache.
 */
import type { ApiUser, Permission, PermissionChecker, PermissionScope, Store, UserRecord } from '../../lib/ports';
import type { UserCache } from './user-cache';

export function storePermissionChecker(store: Pick<Store, 'getUserById'>, options: { users?: UserCache } = {}): PermissionChecker {
  const source = options.users ?? store;
  return {
    async hasPermission(user: ApiUser, permission: Permission, scope?: PermissionScope): Promise<boolean> {
      const row = await source.getUserById(user.id);
      if (!row) return false;
      if (row.permissions.includes(permission)) return true;
      const serial = scope?.caSerial;
      return grantsOf(row).some((g) => g.permission === permission && (serial === undefined || g.caSerial === serial));
    },
    async caSerialsFor(user: ApiUser, permission: Permission): Promise<'all' | ReadonlySet<string>> {
      const row = await source.getUserById(user.id);
      if (!row) return new Set();
      if (row.permissions.includes(permission)) return 'all';
      return new Set(grantsOf(row).flatMap((g) => (g.permission === permission ? [g.caSerial] : [])));
    },
  };
}

const grantsOf = (row: UserRecord) => row.caGrants ?? [];
