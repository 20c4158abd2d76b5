/**
 * Who may enrol at an EST endpoint (RFC 7030 §3.2.3, README "EST"): an API user (HTTP Basic) with
 * `sign_certificate` for the endpoint's CA. `simpleenroll` and `serverkeygen` ask exactly this.
 */
import type { Request, Response } from 'express';
import type { ApiUser, CaRecord } from '../ports';
import { EST_REALM, estError } from './framing';
import type { EstServices } from './route-types';

/** The authenticated user allowed to enrol with `ca`; else 401 (with `WWW-Authenticate`) or 403. */
export async function enrollingUser(services: EstServices, req: Request, res: Response, ca: CaRecord): Promise<ApiUser> {
  const user = await services.authenticate(req, res);
  if (!user)
    throw estError(401, 'Authentication required: an API user (HTTP Basic).', { 'WWW-Authenticate': `Basic realm="${EST_REALM}"` });
  if (!(await services.permissions.hasPermission(user, 'sign_certificate', { caSerial: ca.serial }))) {
    throw estError(403, `${user.username} may not sign certificates with this certificate authority.`);
  }
  return user;
}
