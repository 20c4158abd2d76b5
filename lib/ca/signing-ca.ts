/**
 * Whether a CA may sign now, and how long what it signs may live: one rule for every way a
 * certificate is made (REST sign and resign, ACME, `ca-admin sign_cert`/`resign_cert`, the order
 * runner when it finally signs), so that they refuse the same CAs with the same words.
 *
 * A CA signs while it is enabled, not revoked and inside its validity window (validity.ts). Nothing it
 * signs outlives it (RFC 5280 §6.1.3: a certificate past its issuer's end does not validate).
 */
import type { CaRecord } from '../ports';
import { DAY_MS, formatUtc } from '../x509/datetime';
import { CaError } from './errors';
import { isWithinValidity } from '../ports/validity';

/** Why `ca` cannot sign at `now` ("is revoked", …), or null when it can. */
export function whyCaCannotSign(ca: CaRecord, now: Date): string | null {
  if (!ca.enabled) return 'is disabled';
  if (ca.revoked) return 'is revoked';
  if (isWithinValidity(ca, now)) return null;
  return now > ca.notAfter ? 'has expired' : 'is not yet valid';
}

/** CaError('conflict') naming the CA and the reason, unless `ca` can sign at `now`. */
export function assertCaCanSign(ca: CaRecord, now: Date): void {
  const why = whyCaCannotSign(ca, now);
  if (why !== null) throw new CaError('conflict', `${ca.name}: The certificate authority ${why}.`);
}

/** Upstream issues certificates whose validity starts and ends on a whole minute (docs/COMPATIBILITY.md §3.4). */
export function floorToMinute(d: Date): Date {
  return new Date(Math.floor(d.getTime() / 60_000) * 60_000);
}

/** `notAfter`, or the CA's own end where it would outlive it. */
export function clampToCa(ca: Pick<CaRecord, 'notAfter'>, notAfter: Date): Date {
  return notAfter < ca.notAfter ? notAfter : ca.notAfter;
}

/** The end of a certificate meant to live `lifetimeMs` from `now`: clamped to the CA's, on a whole minute. */
export function validityEnd(ca: Pick<CaRecord, 'notAfter'>, now: Date, lifetimeMs: number): Date {
  return floorToMinute(clampToCa(ca, new Date(now.getTime() + lifetimeMs)));
}

/** A chosen end, kept only if the CA lives that long (the minute it falls in counts, as it is issued). */
export function outlivesCa(ca: Pick<CaRecord, 'notAfter'>, notAfter: Date): boolean {
  return floorToMinute(notAfter) > ca.notAfter;
}

/**
 * The one refusal of a validity the CA cannot cover, at every way in (docs/guides/issuance-policy.md): the
 * command line's wording of the original (docs/COMPATIBILITY.md §4.2), with the CA's end.
 */
export function outlivesCaMessage(ca: Pick<CaRecord, 'notAfter'>, now: Date): string {
  const max = Math.max(0, Math.floor((ca.notAfter.getTime() - now.getTime()) / DAY_MS));
  return `Certificate would outlive CA, maximum expiry for this CA is ${max} days (it expires ${formatUtc(ca.notAfter)}).`;
}
