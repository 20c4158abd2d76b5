/**
 * A short-lived, memory-only cache of verified Basic credentials, so that a client's second request
 * does not pay for bcrypt again.
 *
 * Nothing secret is kept: the key is HMAC-SHA256(per-process random key, username NUL password), so a
 * memory dump reveals neither passwords nor anything a password could be tested against offline
 * without also taking the random key (which never leaves this process). Each entry remembers the
 * user row's `updated` stamp; the authenticator only trusts an entry while the row still carries the
 * same stamp, so a changed password or permission set invalidates it at once.
 */
import { createHmac, randomBytes } from 'crypto';

export interface CachedCredential {
  userId: number;
  /** `UserRecord.updated` (ms) when the credentials were verified. */
  userUpdated: number;
}

export interface CredentialCacheOptions {
  /** Lifetime of an entry; default 60 s. 0 disables the cache. */
  ttlMs?: number;
  /** Upper bound on entries; the oldest go first. Default 10 000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry extends CachedCredential {
  username: string;
  expires: number;
}

export class CredentialCache {
  private readonly secret = randomBytes(32);
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: CredentialCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The entry key of these credentials: an HMAC under the per-process secret, so it can also name a
   * verification in flight without keeping the password.
   */
  key(username: string, password: string): string {
    return createHmac('sha256', this.secret).update(username).update('\0').update(password).digest('base64');
  }

  get(username: string, password: string): CachedCredential | null {
    const key = this.key(username, password);
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return null;
    }
    return { userId: entry.userId, userUpdated: entry.userUpdated };
  }

  set(username: string, password: string, value: CachedCredential): void {
    if (this.ttlMs <= 0) return;
    const key = this.key(username, password);
    this.entries.delete(key); // re-insert at the end (newest)
    this.entries.set(key, { ...value, username, expires: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(username: string, password: string): void {
    this.entries.delete(this.key(username, password));
  }

  /** Forget every entry of `username` (call when a host changes users behind the store's back). */
  invalidateUser(username: string): void {
    for (const [key, entry] of this.entries) if (entry.username === username) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
