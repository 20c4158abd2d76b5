/**
 * The one rule for the default CA (docs/reference/cli.md and "ACME"): the CA that
 * `CA_DEFAULT_CA` names, else, among the candidates — the usable CAs for `ca-admin sign_cert`, the
 * CAs serving ACME for ACME's `directory/` — the one that expires last, ties broken by the lowest
 * serial, as the original orders them (`-expires`, then `serial`). Both callers sort with it, so the
 * CLI and the server choose the same CA from the same CAs.
 */
import type { CaRecord } from '../ports';

type Ranked = Pick<CaRecord, 'notAfter' | 'serial'>;

/** Serials as numbers: canonical hex (no leading zeros), so a shorter one is smaller. */
function compareSerials(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Sort order of default-CA candidates: the one that expires last first; equal expiry, the lowest serial first. */
export function defaultCaOrder(a: Ranked, b: Ranked): number {
  return b.notAfter.getTime() - a.notAfter.getTime() || compareSerials(a.serial, b.serial);
}

/** The default among `candidates` by that order; null when there is none. */
export function latestExpiringCa<T extends Ranked>(candidates: readonly T[]): T | null {
  return [...candidates].sort(defaultCaOrder)[0] ?? null;
}
