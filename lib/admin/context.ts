/**
 * What an admin handler is given: the request and answer, the path parameters, the services, the
 * signed-in session (null on the public pages), the parsed form of a POST, and `base`, the absolute
 * path of the interface (`req.baseUrl` + prefix), from which every link is built so that the router
 * works wherever the host mounts it.
 */
import type { Request, Response } from 'express';
import type { LogError } from '../http/error-catch';
import type { PathRoute } from '../http/path-matcher';
import type { AdminSessionStoreProvider, Authenticator, LoginAttemptLimiter, PermissionChecker, Store } from '../ports';
import type { ActiveSession, AdminSessions } from './session';

export interface AdminServices {
  store: Store & AdminSessionStoreProvider;
  sessions: AdminSessions;
  authenticator: Authenticator;
  permissions: PermissionChecker;
  loginLimiter: LoginAttemptLimiter;
  logError: LogError;
}

export interface AdminContext {
  req: Request;
  res: Response;
  params: Record<string, string>;
  services: AdminServices;
  base: string;
  session: ActiveSession | null;
  form: URLSearchParams | null;
}

/** A signed-in handler's context. */
export type SignedInContext = AdminContext & { session: ActiveSession };

export interface AdminRoute extends PathRoute {
  /** `public`: the sign-in page and assets; `session`: a signed-in user only (others go to the sign-in page). */
  readonly access: 'public' | 'session';
  readonly handler: (ctx: AdminContext) => Promise<void>;
}
