/**
 * Revocation rules, one home for the API (`POST …/revoke/`, lib/api/revoke-request.ts: REST's lookup
 * around `revokeCert`), `ca-admin revoke_cert` and `revoke_ca`, the admin interface and code.
 *
 * Reasons in camelCase or snake_case (docs/reference/differences.md D13), stored snake_case; `compromised` must carry a
 * timezone and not lie in the future (D13); a certificate is revoked once (RFC 5280 §5.3.1 reason
 * codes are kept by name); `revoked_date` is the time of the request.
 */
import { actingAs, type Actor, type CaRecord, type CertificateRecord, type Store } from '../ports';
import { parseDateTime } from '../x509/datetime';
import { collectIssues, invalid } from '../x509/errors';
import { CaError } from './errors';
import { normaliseRevocationReason } from './reasons';

export interface RevokeInput {
  /** camelCase or snake_case (docs/reference/differences.md D13); default `unspecified`. */
  reason?: unknown;
  /** ISO 8601 with timezone or a Date; must not be in the future. */
  compromised?: unknown;
  now?: Date;
  /** Who revokes, for the `certificate.revoked` (`ca.revoked`) event; the store's own actor when absent. */
  actor?: Actor;
}

/**
 * Validate revocation input: X509Error('validation') with loc `['reason']` / `['compromised']`.
 * Messages are the CLI's (docs/COMPATIBILITY.md §4.2).
 */
export function parseRevocation(input: RevokeInput): { reason: string; compromised: Date | null } {
  const now = input.now ?? new Date();
  let reason = 'unspecified';
  let compromised: Date | null = null;
  collectIssues([
    () => {
      if (input.reason === undefined || input.reason === null) return;
      const r = typeof input.reason === 'string' ? normaliseRevocationReason(input.reason) : null;
      if (!r) throw invalid(`${String(input.reason)}: Unknown revocation reason.`, ['reason'], 'enum');
      reason = r;
    },
    () => {
      const c = input.compromised;
      if (c === undefined || c === null) return;
      let date: Date;
      if (c instanceof Date) date = c;
      else {
        const parsed = typeof c === 'string' ? parseDateTime(c) : null;
        if (!parsed) throw invalid(`${String(c)}: Not a valid ISO 8601 timestamp.`, ['compromised'], 'datetime_parsing');
        if (!parsed.aware) throw invalid(`${c}: Timestamp requires a timezone.`, ['compromised'], 'timezone_aware');
        date = parsed.date;
      }
      if (date > now) throw invalid(`${typeof c === 'string' ? c : date.toISOString()}: Timestamp must be in the past.`, ['compromised']);
      compromised = date;
    },
  ]);
  return { reason, compromised };
}

function assertNotRevoked(cert: CertificateRecord): void {
  if (cert.revoked) {
    throw new CaError('conflict', `${cert.serial}: Certificate is already revoked.`, { apiDetail: 'The certificate is already revoked.' });
  }
}

/** revoke_cert: snake_case reason stored, revoked_date = now. */
export async function revokeCert(store: Store, cert: CertificateRecord, input: RevokeInput = {}): Promise<CertificateRecord> {
  const now = input.now ?? new Date();
  const { reason, compromised } = parseRevocation({ ...input, now });
  assertNotRevoked(cert);
  return actingAs(store, input.actor).revokeCertificate(cert.id, reason, compromised, now);
}

/**
 * revoke_ca (and the admin interface's CA page): the revoke_cert rules for a certificate authority,
 * revoked once. Afterwards it signs nothing (signing-ca.ts: a revoked CA cannot sign) but still
 * publishes its CRLs and answers OCSP for what it issued, and its parent's CRLs and OCSP answers list
 * it (the parent's revocation version is raised with it). The CA is read again first, so that a
 * record read before someone else revoked it is refused, not revoked twice.
 */
export async function revokeCa(store: Store, ca: CaRecord, input: RevokeInput = {}): Promise<CaRecord> {
  const now = input.now ?? new Date();
  const { reason, compromised } = parseRevocation({ ...input, now });
  const current = await store.getCa(ca.id);
  if (!current) throw new CaError('not-found', `${ca.serial}: Certificate authority not found.`);
  if (current.revoked) throw new CaError('conflict', `${ca.name}: The certificate authority is already revoked.`);
  return actingAs(store, input.actor).revokeCa(ca.id, reason, compromised, now);
}
