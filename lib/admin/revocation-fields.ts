/**
 * What a revocation form asks (docs/guides/admin-interface.md), for a certificate (handlers/revoke.ts) and
 * for a CA (handlers/ca-revoke.ts) alike: the reason, from revoke_cert's list, and for the compromise
 * reasons when the key was compromised; the rules themselves are lib/ca/revocation.ts's.
 */
import { REVOCATION_REASONS } from '../ca/reasons';
import { html, type Html } from './html';

/** Every reason but `remove_from_crl`, which only a delta CRL can use (RFC 5280 §5.3.1). */
const REASONS = REVOCATION_REASONS.filter((r) => r !== 'remove_from_crl');
const label = (reason: string): string => reason.charAt(0).toUpperCase() + reason.slice(1).replace(/_/g, ' ');

/** Whether the form's reason is one it offers. */
export const isOfferedReason = (reason: string): boolean => (REASONS as readonly string[]).includes(reason);

/** The reason and the compromise time, filled as the user left them. */
export function revocationFields(chosen: string, compromised: string): Html {
  return html`<div class="field">
      <label for="reason">Reason</label
      ><select id="reason" name="reason">
        ${REASONS.map((r) => html`<option value="${r}" ${r === chosen ? html` selected` : null}>${label(r)}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="compromised">Key compromised at (optional; UTC, e.g. 2026-11-01T08:00:00Z)</label
      ><input id="compromised" name="compromised" value="${compromised}" />
    </div>`;
}
