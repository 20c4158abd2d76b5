/**
 * `CA_DEFAULT_CA`: the CA that `ca-admin sign_cert` without `--ca` signs with and that ACME's
 * `directory/` serves, by serial (colons, case and leading zeros ignored) or by name. Unset: the rule
 * of lib/ca/default-ca.ts chooses, the same for both.
 */
import type { Env } from './switch';

/** The text as given, trimmed; null when unset or blank. */
export function defaultCaSetting(env: Env): string | null {
  return env.CA_DEFAULT_CA?.trim() || null;
}
