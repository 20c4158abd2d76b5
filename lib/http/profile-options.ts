/**
 * The `profiles` and `defaultExpires` options, shared by the modules that need the profiles in
 * effect: the REST API signs with them, the revocation endpoints make delegated OCSP responder
 * certificates from the `ocsp` profile. Merged into the built-in profiles like the original's
 * `CA_PROFILES` setting (README "Options"); a profile the engine refuses is an `OptionsError` naming it.
 */
import { DEFAULT_EXPIRES_MS, resolveProfiles, type ProfileConfig, type Profiles } from '../ca/profiles';
import { DAY_MS } from '../x509/datetime';
import { X509Error } from '../x509/errors';
import { isPlainObject } from '../x509/plain-object';
import { OptionsError, show, type OptionsEntry } from './option-checks';

export type DefaultExpires = number | { days: number } | { ms: number };

/** `defaultExpires` in ms: a number of days, `{ days }` or `{ ms }`; absent, 100 days (lib/ca/profiles.ts). */
export function resolveExpires(value: unknown, entry: OptionsEntry = 'createCaApiRouter'): number {
  if (value === undefined) return DEFAULT_EXPIRES_MS;
  let days: number | undefined;
  let ms: number | undefined;
  if (typeof value === 'number') days = value;
  else if (isPlainObject(value) && Object.keys(value).length === 1 && typeof value.days === 'number') days = value.days;
  else if (isPlainObject(value) && Object.keys(value).length === 1 && typeof value.ms === 'number') ms = value.ms;
  else {
    throw new OptionsError(`option \`defaultExpires\` must be a number of days, { days: n } or { ms: n } (got ${show(value)})`, entry);
  }
  const result = ms ?? (days as number) * DAY_MS;
  if (!Number.isFinite(result) || result <= 0) {
    throw new OptionsError(`option \`defaultExpires\` must be a positive duration (got ${show(days ?? ms)})`, entry);
  }
  return Math.round(result);
}

/** The `profiles` option's shape: profile name → settings, or null to delete a built-in one. */
export function checkProfilesOption(value: unknown, entry: OptionsEntry = 'createCaApiRouter'): Record<string, ProfileConfig | null> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) {
    throw new OptionsError(
      `option \`profiles\` must be an object mapping profile names to profile settings or null (got ${show(value)})`,
      entry,
    );
  }
  for (const [name, profile] of Object.entries(value)) {
    if (name === '' || name.includes('/')) {
      throw new OptionsError(`option \`profiles\`: profile names must be non-empty and must not contain '/' (got ${show(name)})`, entry);
    }
    if (profile !== null && !isPlainObject(profile)) {
      throw new OptionsError(
        `option \`profiles\`: profile '${name}' must be an object, or null to remove it (got ${show(profile)})`,
        entry,
      );
    }
  }
  return value as Record<string, ProfileConfig | null>;
}

/** The profiles in effect: the built-in ones merged with `config`, each validated by the engine. */
export function effectiveProfiles(
  config: Record<string, ProfileConfig | null>,
  defaultExpiresMs: number,
  entry: OptionsEntry = 'createCaApiRouter',
): Profiles {
  try {
    return resolveProfiles(config, { defaultExpiresMs });
  } catch (e) {
    if (!(e instanceof X509Error)) throw e;
    const where = e.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    throw new OptionsError(`option \`profiles\`: ${where || e.message}`, entry);
  }
}
