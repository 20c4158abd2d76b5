/**
 * Interrupted issuances settled (docs/DESIGN.md "Issuing authority"): an intent still pending after
 * `leaseMs` — its process died or stalled between recording and storing — is marked failed, so that
 * none stays pending for ever. Its certificate never left that process (a way in answers only once
 * the certificate is stored); the way in's own retry (the order runner, ACME's runner, the client
 * asking again) then issues under a new intent, or signs the recorded one again while it is pending.
 *
 * Run when the router starts — after a crash the embedded database's intents are all its own dead
 * process's once they are older than the lease — and then every tenth of the lease (at most a minute).
 */
import type { Store } from '../../ports';

/** What an intent given up this way says. */
export const INTERRUPTED = 'Interrupted: not stored within the issuance lease (its process stopped); the certificate never left it.';

export interface IntentSweep {
  /** One pass now; how many intents it settled. */
  sweep(): Promise<number>;
  close(): void;
}

export function startIntentSweep(
  store: Pick<Store, 'settleInterruptedIntents'>,
  leaseMs: number,
  logError: (message: string, error: unknown) => void,
): IntentSweep {
  const sweep = () => store.settleInterruptedIntents(new Date(Date.now() - leaseMs), INTERRUPTED);
  const run = () => void sweep().catch((e: unknown) => logError('express-ca-api: settling interrupted issuances failed', e));
  const first = setTimeout(run, 0);
  const timer = setInterval(run, Math.min(60_000, Math.max(100, Math.floor(leaseMs / 10))));
  first.unref();
  timer.unref();
  return {
    sweep,
    close: () => {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
