/**
 * HTTP Basic authentication (RFC 7617) through passport, in front of an `Authenticator` port.
 *
 * passport-http's BasicStrategy is used as the passport integration, but its header parsing is
 * replaced: it splits the decoded credentials at *every* ':' (so a password containing ':' is cut
 * short), decodes base64 leniently and rejects empty passwords with a 400. RFC 7617 says: scheme
 * `Basic` (any case), token68 credentials, UTF-8, user-id up to the *first* colon, no control
 * characters. Unlike the original service we neither percent-decode the parts nor accept a bare
 * base64 value without the scheme (docs/COMPATIBILITY.md §1.3).
 *
 * A private `Passport` instance is used so that the host application's passport setup (if any) is
 * neither needed nor touched.
 */
import { isUtf8 } from 'buffer';
import type { Request, Response } from 'express';
import { Passport } from 'passport';
import { BasicStrategy } from 'passport-http';
import { NO_METRICS, type ApiUser, type Authenticator, type LockoutStart, type LoginAttemptLimiter, type MetricsSink } from '../ports';
import { HttpError } from './http-errors';

export interface BasicCredentials {
  username: string;
  password: string;
}

const TOKEN68_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Parse an `Authorization` header value; null when it is absent or not valid Basic credentials. */
export function parseBasicAuthorization(header: string | undefined): BasicCredentials | null {
  if (!header) return null;
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(header);
  if (!match || match[1].toLowerCase() !== 'basic') return null;
  const token = match[2];
  if (!TOKEN68_BASE64.test(token) || token.replace(/=+$/, '').length % 4 === 1) return null;
  const padded = token.replace(/=+$/, '');
  if (token.length !== padded.length && token.length % 4 !== 0) return null; // bad padding
  const bytes = Buffer.from(padded, 'base64');
  if (!isUtf8(bytes)) return null;
  const decoded = bytes.toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return null;
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (CONTROL.test(username) || CONTROL.test(password)) return null;
  return { username, password };
}

/** What passport adds to a strategy instance while it authenticates a request. */
interface StrategyActions {
  success(user: unknown): void;
  fail(challenge?: string | number, status?: number): void;
  error(err: unknown): void;
}

/** passport-http's BasicStrategy with RFC 7617 parsing. */
export class Rfc7617BasicStrategy extends BasicStrategy {
  private readonly challenge: string;
  private readonly verifyCredentials: (username: string, password: string, req: Request) => Promise<ApiUser | null>;

  constructor(realm: string, verify: (username: string, password: string, req: Request) => Promise<ApiUser | null>) {
    super({ realm }, () => undefined); // parsing and verification are ours, see authenticate()
    this.challenge = `Basic realm="${realm}"`;
    this.verifyCredentials = verify;
  }

  override authenticate(req: Request): void {
    const actions = this as unknown as StrategyActions;
    const credentials = parseBasicAuthorization(req.headers.authorization);
    if (!credentials) {
      actions.fail(this.challenge);
      return;
    }
    this.verifyCredentials(credentials.username, credentials.password, req).then(
      (user) => (user ? actions.success(user) : actions.fail(this.challenge)),
      (err: unknown) => actions.error(err),
    );
  }
}

/** Told when a failed attempt starts a lockout (docs/operations/audit-and-events.md "Audit": the `login.locked_out` record). */
export type OnLockout = (username: string, address: string, lockout: LockoutStart) => Promise<void>;

/** Authenticate one request: the user, or null for missing/malformed/wrong credentials. */
export type RequestAuthenticator = (req: Request, res: Response) => Promise<ApiUser | null>;

/** 429 for a username or address at its limit of failed attempts (docs/operations/hostile-clients-and-outages.md "Brute-force protection"). */
export const tooManyFailedLogins = (retryAfterSeconds: number): HttpError =>
  new HttpError(429, 'Too many failed login attempts. Retry later.', { 'Retry-After': String(retryAfterSeconds) });

/**
 * `authenticator` behind the limiter: a username or client address at its limit is refused before its
 * password is checked (no bcrypt work, no answer about the password), failures are counted, and a
 * success after failures starts the username's count again. The address is Express's `req.ip`, which
 * honours the host app's `trust proxy` setting. Failures and refusals are counted (docs/operations/metrics.md).
 */
function limited(authenticator: Authenticator, limiter: LoginAttemptLimiter, metrics: MetricsSink, onLockout: OnLockout) {
  return async (username: string, password: string, req: Request): Promise<ApiUser | null> => {
    const address = req.ip ?? req.socket.remoteAddress ?? '';
    const { retryAfterSeconds, userFailures } = await limiter.check(username, address);
    if (retryAfterSeconds > 0) {
      metrics.loginRateLimited();
      throw tooManyFailedLogins(retryAfterSeconds);
    }
    const user = await authenticator.authenticate(username, password);
    if (!user) {
      metrics.loginFailed();
      const lockout = await limiter.failed(username, address);
      if (lockout) await onLockout(username, address, lockout);
    } else if (userFailures > 0) await limiter.succeeded(username, address);
    return user;
  };
}

/** `authenticator` without a limiter: failures are still counted. */
function counted(authenticator: Authenticator, metrics: MetricsSink) {
  return async (username: string, password: string): Promise<ApiUser | null> => {
    const user = await authenticator.authenticate(username, password);
    if (!user) metrics.loginFailed();
    return user;
  };
}

export function basicAuthenticator(
  authenticator: Authenticator,
  realm: string,
  limiter: LoginAttemptLimiter | null = null,
  metrics: MetricsSink = NO_METRICS,
  onLockout: OnLockout = async () => undefined,
): RequestAuthenticator {
  const passport = new Passport();
  const verify = limiter ? limited(authenticator, limiter, metrics, onLockout) : counted(authenticator, metrics);
  passport.use('basic', new Rfc7617BasicStrategy(realm, verify));
  return (req, res) =>
    new Promise<ApiUser | null>((resolve, reject) => {
      const middleware = passport.authenticate('basic', { session: false }, (err: unknown, user: ApiUser | false | null) =>
        err ? reject(err) : resolve(user || null),
      ) as (req: Request, res: Response, next: (err?: unknown) => void) => void;
      middleware(req, res, (err?: unknown) => reject(err ?? new Error('passport: unexpected next()')));
    });
}
