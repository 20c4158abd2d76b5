/**
 * A user's permissions in words, as `ca-admin list_api_users` prints them and the admin interface
 * shows them: the permissions that hold for the same CAs together (`every permission` when all five
 * of the REST API do), `all CAs` for a grant on every CA, else the CAs by name; then the admin
 * interface's own permissions; `no permissions` for a user without any.
 */
import { ADMIN_PERMISSIONS, ALL_PERMISSIONS, type Permission, type UserRecord } from '../ports';
import { serialToColons } from '../x509/serial-format';

export function permissionSummary(user: UserRecord, caNames: ReadonlyMap<string, string>): string {
  const byScope = new Map<string, Permission[]>();
  for (const permission of ALL_PERMISSIONS) {
    const cas = user.permissions.includes(permission)
      ? ['all CAs']
      : (user.caGrants ?? [])
          .filter((g) => g.permission === permission)
          .map((g) => caNames.get(g.caSerial) ?? serialToColons(g.caSerial))
          .sort();
    if (!cas.length) continue;
    const scope = cas.join(', ');
    byScope.set(scope, [...(byScope.get(scope) ?? []), permission]);
  }
  const parts = [...byScope].map(
    ([scope, permissions]) => `${permissions.length === ALL_PERMISSIONS.length ? 'every permission' : permissions.join(', ')} on ${scope}`,
  );
  parts.push(...ADMIN_PERMISSIONS.filter((p) => user.permissions.includes(p)));
  return parts.length ? parts.join('; ') : 'no permissions';
}
