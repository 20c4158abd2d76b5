/**
 * Part of `Store`, for the admin web interface (docs/guides/admin-interface.md), as
 * `store.adminSessions`: server-side sessions, kept in the library's database so that any instance of
 * a fleet serves any session. The store keeps only the SHA-256 of a session's token (the cookie
 * holds the token), so a copy of the table signs nobody in.
 */

export interface NewAdminSession {
  /** Lower-case hex SHA-256 of the cookie's token. */
  tokenSha256: string;
  userId: number;
  /** The user row's `updated` at sign-in: a later change (password, permissions) ends the session. */
  userUpdated: Date;
  /** The synchronizer token every state-changing form of the session carries. */
  csrfToken: string;
  /** The client's address at sign-in. */
  address: string;
  created: Date;
  /**
   * When the user last typed the password in this session (the sign-in, or a re-authentication):
   * the sensitive actions need it recent (docs/guides/admin-interface.md, step-up).
   */
  stepUpAt: Date;
}

export interface AdminSessionRecord extends NewAdminSession {
  lastSeen: Date;
}

export interface AdminSessionStore {
  createAdminSession(session: NewAdminSession): Promise<void>;
  /** The session whose token hashes to `tokenSha256`, or null. */
  findAdminSession(tokenSha256: string): Promise<AdminSessionRecord | null>;
  /** Record activity (the idle timeout counts from it). */
  touchAdminSession(tokenSha256: string, at: Date): Promise<void>;
  deleteAdminSession(tokenSha256: string): Promise<void>;
  /** Delete sessions idle since before `idleBefore` or created before `createdBefore`; returns how many. */
  deleteStaleAdminSessions(idleBefore: Date, createdBefore: Date): Promise<number>;
}

export interface AdminSessionStoreProvider {
  readonly adminSessions: AdminSessionStore;
}
