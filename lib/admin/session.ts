/**
 * Server-side sessions of the admin interface (docs/guides/admin-interface.md, security): a random 256-bit
 * token in a cookie; the store keeps its SHA-256 with the user, the user row's `updated` stamp, the
 * CSRF token, the address and the times. A session ends when idle for `idleTimeoutMs`, older than
 * `absoluteTimeoutMs`, when the user is gone or changed (a password or permission change bumps
 * `updated`), and at sign-out. Every sign-in makes a new token (no session fixation).
 *
 * Step-up (docs/guides/admin-interface.md; OWASP's transaction authorization): the sensitive actions need
 * the password typed within `stepUpMs`. A sign-in counts, and so does a re-authentication, which
 * starts a new session (a new token, as at sign-in) whose `stepUpAt` is now.
 */
import { createHash, randomBytes } from 'crypto';
import type { AdminSessionRecord, AdminSessionStore, Store, UserRecord } from '../ports';

export interface ActiveSession {
  token: string;
  record: AdminSessionRecord;
  user: UserRecord;
}

/** Activity is written at most this often: a page view is not a write each time. */
const TOUCH_EVERY_MS = 60_000;

export const newToken = (): string => randomBytes(32).toString('base64url');
export const tokenSha256 = (token: string): string => createHash('sha256').update(token).digest('hex');

export class AdminSessions {
  constructor(
    private readonly sessions: AdminSessionStore,
    private readonly users: Pick<Store, 'getUserById'>,
    private readonly timeouts: { idleTimeoutMs: number; absoluteTimeoutMs: number; stepUpMs: number },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A new session for `user`: its token (for the cookie) and CSRF token. */
  async start(user: UserRecord, address: string): Promise<{ token: string; csrfToken: string }> {
    const token = newToken();
    const csrfToken = newToken();
    const created = this.now();
    await this.sessions.createAdminSession({
      tokenSha256: tokenSha256(token),
      userId: user.id,
      userUpdated: user.updated,
      csrfToken,
      address,
      created,
      stepUpAt: created,
    });
    // Sign-ins are where stale sessions are swept (no timer to run or stop).
    await this.sessions.deleteStaleAdminSessions(
      new Date(created.getTime() - this.timeouts.idleTimeoutMs),
      new Date(created.getTime() - this.timeouts.absoluteTimeoutMs),
    );
    return { token, csrfToken };
  }

  /** The live session of `token`, or null (ended now if it had timed out or its user changed). */
  async load(token: string | undefined): Promise<ActiveSession | null> {
    if (!token || token.length > 100) return null;
    const hash = tokenSha256(token);
    const record = await this.sessions.findAdminSession(hash);
    if (!record) return null;
    const now = this.now().getTime();
    const user = await this.users.getUserById(record.userId);
    const over =
      now - record.lastSeen.getTime() > this.timeouts.idleTimeoutMs ||
      now - record.created.getTime() > this.timeouts.absoluteTimeoutMs ||
      !user ||
      user.updated.getTime() !== record.userUpdated.getTime();
    if (over) {
      await this.sessions.deleteAdminSession(hash);
      return null;
    }
    if (now - record.lastSeen.getTime() > TOUCH_EVERY_MS) await this.sessions.touchAdminSession(hash, new Date(now));
    return { token, record, user };
  }

  /** Whether the password was typed recently enough for a sensitive action. */
  steppedUp(session: ActiveSession): boolean {
    return this.now().getTime() - session.record.stepUpAt.getTime() < this.timeouts.stepUpMs;
  }

  end(token: string): Promise<void> {
    return this.sessions.deleteAdminSession(tokenSha256(token));
  }
}
