/**
 * The profile settings (docs/COMPATIBILITY.md §3.5, docs/reference/options.md): `CA_PROFILES` (JSON merged into
 * the built-in profiles like the original's setting), `CA_DEFAULT_PROFILE` and `CA_DEFAULT_EXPIRES`
 * (days). `ca-admin` signs with them and the router's REST API does too when its `profiles`,
 * `defaultProfile` and `defaultExpires` options are absent, so both sign with the same profiles.
 */
import { resolveProfiles, type ProfileConfig, type Profiles } from '../ca/profiles';
import { DEFAULT_PROFILE_NAME } from '../ports/ca-fields';
import { DAY_MS } from '../x509/datetime';
import { X509Error } from '../x509/errors';
import { isPlainObject } from '../x509/plain-object';
import { SettingsError, shown } from './errors';
import type { Env } from './switch';

export interface ProfileSettings {
  /** `CA_PROFILES`: null when unset or empty. */
  profiles: Record<string, ProfileConfig | null> | null;
  /** `CA_DEFAULT_PROFILE`, default `webserver`; a profile of `effectiveProfiles`. */
  defaultProfile: string;
  /** `CA_DEFAULT_EXPIRES` in milliseconds: null when unset (each reader's default, 100 days). */
  defaultExpiresMs: number | null;
  /** The built-in profiles merged with `profiles`, each validated. */
  effectiveProfiles: Profiles;
}

function profilesConfig(raw: string | undefined): Record<string, ProfileConfig | null> | null {
  if (!raw) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new SettingsError(
      'CA_PROFILES',
      'must be JSON: an object mapping profile names to profile settings or null (it is not valid JSON)',
    );
  }
  if (!isPlainObject(value)) {
    throw new SettingsError('CA_PROFILES', `must be a JSON object mapping profile names to profile settings or null (got ${shown(raw)})`);
  }
  for (const [name, profile] of Object.entries(value)) {
    if (name === '' || name.includes('/')) {
      throw new SettingsError('CA_PROFILES', `: profile names must be non-empty and must not contain '/' (got ${shown(name)})`);
    }
    if (profile !== null && !isPlainObject(profile)) {
      throw new SettingsError('CA_PROFILES', `: profile '${name}' must be an object, or null to remove it`);
    }
  }
  return value as Record<string, ProfileConfig | null>;
}

/** `CA_DEFAULT_EXPIRES` in milliseconds; null when unset. */
export function defaultExpiresSetting(env: Env): number | null {
  const raw = env.CA_DEFAULT_EXPIRES;
  if (!raw) return null;
  const days = Number(raw);
  if (!(days >= 1) || !Number.isFinite(days)) {
    throw new SettingsError('CA_DEFAULT_EXPIRES', `must be a number of days >= 1 (got ${shown(raw)})`);
  }
  return days * DAY_MS;
}

/** `CA_DEFAULT_PROFILE` as given (checked against the profiles by its reader); null when unset or empty. */
export function defaultProfileSetting(env: Env): string | null {
  return env.CA_DEFAULT_PROFILE || null;
}

export function profileSettings(env: Env): ProfileSettings {
  const profiles = profilesConfig(env.CA_PROFILES);
  const defaultExpiresMs = defaultExpiresSetting(env);
  let effectiveProfiles: Profiles;
  try {
    effectiveProfiles = resolveProfiles(profiles, defaultExpiresMs === null ? {} : { defaultExpiresMs });
  } catch (e) {
    if (!(e instanceof X509Error)) throw e;
    const where = e.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    throw new SettingsError('CA_PROFILES', `: ${where || e.message}`);
  }
  const defaultProfile = defaultProfileSetting(env) ?? DEFAULT_PROFILE_NAME;
  if (!effectiveProfiles.has(defaultProfile)) {
    throw new SettingsError(
      'CA_DEFAULT_PROFILE',
      `must name a configured profile (got ${shown(defaultProfile)}; configured: ${[...effectiveProfiles.keys()].join(', ') || 'none'})`,
    );
  }
  return { profiles, defaultProfile, defaultExpiresMs, effectiveProfiles };
}
