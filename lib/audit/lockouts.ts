/**
 * A login lockout in the audit log (docs/operations/audit-and-events.md "Audit"): not a row change — the limiter's counts live in
 * memory or in its own table — so it is recorded as an event of its own when a failed attempt starts
 * it, once per lockout. A failed record does not change the answer (the client is refused either way);
 * it is reported, never thrown.
 */
import type { LockoutStart, Store } from '../ports';

export async function recordLockout(
  store: Store,
  username: string,
  address: string,
  lockout: LockoutStart,
  logError: (message: string, error: unknown) => void,
  protocol = 'rest',
): Promise<void> {
  try {
    await store.auditLog.recordEvent(
      'login.locked_out',
      { type: 'anonymous', name: username, protocol, address },
      { username, address, locked_out: lockout.lockedOut, retry_after_seconds: lockout.retryAfterSeconds },
    );
  } catch (e) {
    logError('express-ca-api: a login lockout could not be recorded in the audit log', e);
  }
}
