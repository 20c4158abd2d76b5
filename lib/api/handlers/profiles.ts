/**
 * Endpoints 1 and 2: `GET /profiles/` and `GET /profiles/{name}/`. The profiles are the host's
 * `profiles` option merged into the five defaults (lib/ca/profiles.ts), resolved once when the router
 * is built; CA flags play no part here.
 */
import { profileToJson } from '../../ca/profiles';
import { notFound } from '../../http/http-errors';
import { ok } from '../json';
import type { ApiHandler } from '../route-types';

export const listProfiles: ApiHandler = async (ctx) => ok([...ctx.services.profiles.values()].map(profileToJson));

export const viewProfile: ApiHandler = async (ctx) => {
  const profile = ctx.services.profiles.get(ctx.params.name);
  if (!profile) throw notFound();
  return ok(profileToJson(profile));
};
