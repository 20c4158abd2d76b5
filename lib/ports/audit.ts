/**
 * The audit log (docs/operations/audit-and-events.md "Audit", docs/DESIGN.md "Audit log"): the outbox of domain
 * events (lib/ports/events.ts) read as the records a hash chain covers. Each record carries SHA-256
 * over the previous record's hash and a canonical text of its own fields (lib/audit/audit-chain.ts), so
 * that a record changed, removed or slipped in afterwards breaks the chain at that record.
 */

/** One audit record exactly as stored: the texts its hash covers, nothing re-serialised. */
export interface AuditRow {
  id: number;
  /** The commit time in UTC to the microsecond, `2026-11-25T21:43:03.123456Z`. */
  created: string;
  type: string;
  /** The actor's JSON text as stored (lib/ports/events.ts `Actor`). */
  actorText: string;
  caSerial: string | null;
  serial: string | null;
  /** The data's JSON text as stored. */
  dataText: string;
  /** Hex SHA-256 chained over the previous record (lib/audit/audit-chain.ts). */
  hash: string;
}

export interface AuditFilter {
  /** Records with a greater id only (paging; 0 or absent: from the first). */
  afterId?: number;
  /** Records with a smaller id only (paging newest first; 0 or absent: up to the last). */
  beforeId?: number;
  /** Records committed at or after this time only. */
  since?: Date;
  /** Records about this CA only (its certificates' records included). */
  caSerial?: string;
  /** Records of this event type only (`certificate.revoked`). */
  type?: string;
  /** Records whose actor has exactly this name only (an API user's username, an operator, a database role). */
  actorName?: string;
  /** Newest (highest id) first: the latest records (the admin dashboard and audit log); `afterId` and `beforeId` still bound them. */
  newestFirst?: boolean;
  /** Records about this certificate only (its serial: upper-case hex, no colons or leading zeros); with `caSerial`, of that CA. */
  serial?: string;
  /** At most this many (the store may cap it). */
  limit?: number;
}

export interface AuditLog {
  /** Records in id order (the chain's order; reversed with `newestFirst`), filtered, a page at a time. */
  auditRows(filter: AuditFilter): Promise<AuditRow[]>;
  /**
   * Record an event that is not a row change (a login lockout), in its own transaction and chained
   * like every other (`actor` as lib/ports/events.ts describes it).
   */
  recordEvent(type: string, actor: Record<string, unknown>, data: Record<string, unknown>): Promise<void>;
}

/** Part of `Store`: its audit log, as `auditLog`. */
export interface AuditLogProvider {
  readonly auditLog: AuditLog;
}
