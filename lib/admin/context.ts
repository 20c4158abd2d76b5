/**
 * What an admin handler is given: the request and answer, the path parameters, the services, the
 * signed-in session (null on the public pages), the parsed form of a POST, and `base`, the absolute
 * path of the interface (`req.baseUrl` + prefix), from which every link is built so that the router
 * works wherever the host mounts it.
 */
import type { Request, Response } from 'express';
import type { Profiles } from '../ca/profiles';
import type { LogError } from '../http/error-catch';
import type { PathRoute } from '../http/path-matcher';
import type { Authenticator, KeyBackend, LoginAttemptLimiter, PermissionChecker, SecretBox, Store } from '../ports';
import type { QuerySpec } from './query-check';
import type { ActiveSession, AdminSessions } from './session';

export interface AdminServices {
  store: Store;
  sessions: AdminSessions;
  authenticator: Authenticator;
  permissions: PermissionChecker;
  loginLimiter: LoginAttemptLimiter;
  logError: LogError;
  /** What issuing from the interface signs with; `keyBackends` may be empty (issuing is then unavailable). */
  signing: { keyBackends: Readonly<Record<string, KeyBackend>>; profiles: Profiles; defaultProfile: string };
  /** Seals new webhook secrets; null: adding and rotating are unavailable. */
  webhookSecrets: SecretBox | null;
  /** Seals new ACME external account binding keys; null: making them is unavailable. */
  eabSecrets: SecretBox | null;
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
  /** `public`: the sign-in page; `session`: a signed-in user only (others go to the sign-in page); `asset`: anyone, no session read. */
  readonly access: 'public' | 'session' | 'asset';
  /**
   * A sensitive page or action (docs/guides/admin-interface.md, step-up): with the password not typed within
   * `session.stepUpMs`, it changes nothing and sends the user to re-authenticate, then back to
   * `formPage` (a path under the prefix, with the route's `{param}`s) — the page the action's form is on.
   */
  readonly stepUp?: { readonly formPage: string };
  /** The query parameters that are not free text, checked before the handler runs (query-check.ts). */
  readonly query?: QuerySpec;
  readonly handler: (ctx: AdminContext) => Promise<void>;
}
