/**
 * The `profiles`, `defaultProfile` and `defaultExpires` options, shared by every entry that signs or
 * needs the profiles in effect: the REST API and the admin interface sign with them, the revocation
 * endpoints make delegated OCSP responder certificates from the `ocsp` profile. Merged into the
 * built-in profiles like the original's `CA_PROFILES` setting (docs/reference/options.md); a profile the engine
 * refuses is an `OptionsError` naming it. Where the host left them out, `CA_PROFILES`,
 * `CA_DEFAULT_PROFILE` and `CA_DEFAULT_EXPIRES` count, read by lib/settings as `ca-admin` reads them:
 * one environment, the same profiles, default profile and validity for every way in.
 */
import { DEFAULT_EXPIRES_MS, resolveProfiles, type ProfileConfig, type Profiles } from '../ca/profiles';
import { DEFAULT_PROFILE_NAME } from '../ports/ca-fields';
import { defaultExpiresSetting, defaultProfileSetting, profileSettings, type Env } from '../settings';
import { DAY_MS } from '../x509/datetime';
import { X509Error } from '../x509/errors';
import { isPlainObject } from '../x509/plain-object';
import { fromEnvironment, OptionsError, show, type OptionsEntry } from './option-checks';

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

/** The three profile options as a host gives them (`createCaApiRouter`, `createCaAdminRouter`). */
export interface ProfileOptions {
  profiles?: Record<string, ProfileConfig | null>;
  defaultProfile?: string;
  defaultExpires?: DefaultExpires;
}

/** The profile options after defaults and validation. */
export interface ResolvedProfileOptions {
  /** As given (or from `CA_PROFILES`): the changes to the built-in profiles. */
  profiles: Record<string, ProfileConfig | null>;
  /** The built-in profiles merged with `profiles`, each validated. */
  effectiveProfiles: Profiles;
  /** A profile of `effectiveProfiles`. */
  defaultProfile: string;
  /** The lifetime of profiles that set none. */
  defaultExpiresMs: number;
}

/**
 * `CA_PROFILES`, `CA_DEFAULT_PROFILE` and `CA_DEFAULT_EXPIRES` where the host gave no `profiles`,
 * `defaultProfile` or `defaultExpires`: every entry then signs with the profiles `ca-admin` signs with.
 * Given options win, and a variable that only stands in for a given option is not read (its mistakes
 * do not count).
 */
export function withProfileSettings<T extends ProfileOptions>(options: T, env: Env, entry: OptionsEntry): T {
  if (options.profiles !== undefined && options.defaultProfile !== undefined && options.defaultExpires !== undefined) return options;
  if (options.profiles !== undefined) {
    // The host's own profiles: CA_PROFILES does not count, and CA_DEFAULT_PROFILE is checked against
    // the host's profiles by resolveProfileOptions.
    const expiresMs = options.defaultExpires === undefined ? fromEnvironment(() => defaultExpiresSetting(env), entry) : null;
    return {
      ...options,
      defaultProfile: options.defaultProfile ?? defaultProfileSetting(env) ?? undefined,
      defaultExpires: options.defaultExpires ?? (expiresMs === null ? undefined : { ms: expiresMs }),
    };
  }
  const fromEnv = fromEnvironment(() => profileSettings(env), entry);
  return {
    ...options,
    profiles: fromEnv.profiles ?? undefined,
    defaultProfile: options.defaultProfile ?? (defaultProfileSetting(env) === null ? undefined : fromEnv.defaultProfile),
    defaultExpires: options.defaultExpires ?? (fromEnv.defaultExpiresMs === null ? undefined : { ms: fromEnv.defaultExpiresMs }),
  };
}

/** The profile options checked, with their defaults (the built-in profiles, `webserver`, 100 days). */
export function resolveProfileOptions(options: ProfileOptions, entry: OptionsEntry = 'createCaApiRouter'): ResolvedProfileOptions {
  const defaultExpiresMs = resolveExpires(options.defaultExpires, entry);
  const profiles = checkProfilesOption(options.profiles, entry);
  const defaultProfile: unknown = options.defaultProfile ?? DEFAULT_PROFILE_NAME;
  if (typeof defaultProfile !== 'string') {
    throw new OptionsError(`option \`defaultProfile\` must be a profile name such as 'webserver' (got ${show(defaultProfile)})`, entry);
  }
  const effective = effectiveProfiles(profiles, defaultExpiresMs, entry);
  if (!effective.has(defaultProfile)) {
    const names = [...effective.keys()];
    throw new OptionsError(
      `option \`defaultProfile\` names '${defaultProfile}', which is not a configured profile (configured: ${names.join(', ') || 'none'})`,
      entry,
    );
  }
  return { profiles, effectiveProfiles: effective, defaultProfile, defaultExpiresMs };
}

/**
 * The profiles in effect for an entry without a default profile (the revocation endpoints, which make
 * OCSP responder certificates from the `ocsp` profile): `profiles`, else `CA_PROFILES`; the lifetime
 * of those that set none from `CA_DEFAULT_EXPIRES`, as for the entries that sign.
 */
export function profilesWithSettings(profiles: unknown, env: Env, entry: OptionsEntry): Profiles {
  if (profiles === undefined) return fromEnvironment(() => profileSettings(env), entry).effectiveProfiles;
  const expiresMs = fromEnvironment(() => defaultExpiresSetting(env), entry) ?? DEFAULT_EXPIRES_MS;
  return effectiveProfiles(checkProfilesOption(profiles, entry), expiresMs, entry);
}
