/**
 * Endpoints 1 and 2: `GET /profiles/` and `GET /profiles/{name}/` (reference/api.md §7.1, §7.2).
 *
 * Profiles come from the host's `profiles` option merged into the five defaults; CA flags play no
 * part here.
 */
import { profileToJson, resolveProfiles, type Profiles } from '../ca/profiles';
import type { ProfileConfig } from '../options';
import { notFound } from './http-errors';
import { ok } from './json';
import type { ApiContext, ApiHandler } from './route-table';

/** Resolved profiles per configuration object: the option never changes after the router is built. */
const resolved = new WeakMap<object, Map<number, Profiles>>();

/** The effective profiles of this router (defaults merged with the host's option), memoised. */
export function profilesOf(config: Record<string, ProfileConfig | null>, defaultExpiresMs: number): Profiles {
  let byExpiry = resolved.get(config);
  if (!byExpiry) {
    byExpiry = new Map();
    resolved.set(config, byExpiry);
  }
  let profiles = byExpiry.get(defaultExpiresMs);
  if (!profiles) {
    profiles = resolveProfiles(config, { defaultExpiresMs });
    byExpiry.set(defaultExpiresMs, profiles);
  }
  return profiles;
}

export function contextProfiles(ctx: Pick<ApiContext, 'profiles' | 'defaultExpiresMs'>): Profiles {
  return profilesOf(ctx.profiles, ctx.defaultExpiresMs);
}

export const listProfiles: ApiHandler = async (ctx) => ok([...contextProfiles(ctx).values()].map(profileToJson));

export const viewProfile: ApiHandler = async (ctx) => {
  const profile = contextProfiles(ctx).get(ctx.params.name);
  if (!profile) throw notFound();
  return ok(profileToJson(profile));
};
