/**
 * What a restored database is checked for before it serves (`ca-admin verify_restore`, and `ca-admin
 * restore`, which runs it; docs/operations/backup-restore.md "After a restore"):
 *
 * - its audit log's hash chain is unbroken (lib/audit/audit-chain.ts);
 * - every CA's private key opens with the key backends of this environment — a wrong
 *   key-encryption key is one clear error, before anything is served or changed;
 * - what happened after the backup, as far as the operator can tell us: given an audit log export
 *   of the lost database (`ca-admin audit_log` as JSON lines, kept somewhere else), the certificates
 *   issued or imported after the backup that this database does not hold, and the revocations it does
 *   not know. Those must be revoked again or imported again; until then OCSP answers `unknown` for the
 *   missing certificates and `good` for the forgotten revocations.
 *
 * CRL numbers need no step: they never fall below the time (lib/ca/crl-number.ts). Serials need none
 * either: they are 159 random bits (lib/x509/serial.ts), so a new certificate's serial is one never
 * used, before or after the backup, and the store's unique index refuses the impossible repeat.
 */
import type { AuditLog, Store } from '../ports';
import { verifyAuditChain } from '../audit/audit-chain';
import { CaError } from '../ca/errors';
import { caSigner, type KeyBackends } from '../ca/key-backends';

/** One record of an `audit_log --format jsonl` export, as far as the check reads it. */
export interface ExportedAuditRecord {
  id: number;
  created: string;
  type: string;
  ca_serial: string | null;
  serial: string | null;
  hash: string;
}

export interface MissingCertificate {
  serial: string;
  caSerial: string | null;
  /** When the lost database recorded it. */
  created: string;
  /** `certificate.issued` or `certificate.imported`. */
  type: string;
}

export interface RestoreReport {
  auditRecords: number;
  /** The newest audit record of the restored database: the backup's moment. */
  lastRecord: { id: number; created: string } | null;
  /** CA names whose keys opened. */
  casChecked: string[];
  /** From the export of the lost database's audit log; empty without one. */
  issuedAfter: MissingCertificate[];
  revokedAfter: { serial: string; caSerial: string | null; created: string }[];
  /** Whether an export was given. */
  exportRead: boolean;
}

/** The JSON lines of an `audit_log` export; a line that is not one is an error naming it. */
export function parseAuditExport(text: string): ExportedAuditRecord[] {
  const out: ExportedAuditRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let record: Partial<ExportedAuditRecord>;
    try {
      record = JSON.parse(line) as Partial<ExportedAuditRecord>;
    } catch {
      throw new CaError('invalid', `Line ${i + 1} of the audit log export is not JSON (export with: ca-admin audit_log --format jsonl).`);
    }
    if (typeof record.id !== 'number' || typeof record.type !== 'string' || typeof record.hash !== 'string')
      throw new CaError('invalid', `Line ${i + 1} of the audit log export is not an audit record (id, type, hash).`);
    out.push({
      id: record.id,
      created: String(record.created ?? ''),
      type: record.type,
      ca_serial: record.ca_serial ?? null,
      serial: record.serial ?? null,
      hash: record.hash,
    });
  });
  return out;
}

async function lastAuditRecord(log: AuditLog): Promise<{ id: number; created: string; hash: string } | null> {
  const [row] = await log.auditRows({ newestFirst: true, limit: 1 });
  return row ? { id: row.id, created: row.created, hash: row.hash } : null;
}

export async function checkRestoredDatabase(
  store: Store,
  keyBackends: KeyBackends,
  newer: ExportedAuditRecord[] | null = null,
): Promise<RestoreReport> {
  const verdict = await verifyAuditChain(store.auditLog);
  if (!verdict.intact)
    throw new CaError('invalid', `The restored audit log is broken at record ${verdict.brokenAt}: do not serve from this database.`);
  const casChecked: string[] = [];
  for (const ca of await store.listCas()) {
    if (ca.keyBackendOptions === null) continue; // imported without its key: nothing to open
    try {
      await caSigner(keyBackends, ca);
    } catch (e) {
      throw new CaError(
        'key',
        `The private key of CA ${ca.name} does not open: ${(e as Error).message} ` +
          'Restore with the key-encryption key (and HSM) the backup was made with; nothing was changed.',
      );
    }
    casChecked.push(ca.name);
  }
  const last = await lastAuditRecord(store.auditLog);
  const report: RestoreReport = {
    auditRecords: verdict.records,
    lastRecord: last && { id: last.id, created: last.created },
    casChecked,
    issuedAfter: [],
    revokedAfter: [],
    exportRead: newer !== null,
  };
  if (!newer) return report;
  const lastId = last?.id ?? 0;
  const same = newer.find((r) => r.id === lastId);
  if (last && same && same.hash !== last.hash)
    throw new CaError('invalid', `The audit log export is not of this CA's database: its record ${lastId} differs from the restored one.`);
  for (const record of newer) {
    if (record.id <= lastId || record.serial === null) continue;
    if (record.type === 'certificate.issued' || record.type === 'certificate.imported') {
      const held = await store.findCertificateBySerial(record.serial);
      if (!held.length)
        report.issuedAfter.push({ serial: record.serial, caSerial: record.ca_serial, created: record.created, type: record.type });
    } else if (record.type === 'certificate.revoked') {
      const held = await store.findCertificateBySerial(record.serial);
      if (held.some((c) => !c.revoked))
        report.revokedAfter.push({ serial: record.serial, caSerial: record.ca_serial, created: record.created });
    }
  }
  // A certificate issued and revoked after the backup is listed once, as missing.
  const missing = new Set(report.issuedAfter.map((c) => c.serial));
  report.revokedAfter = report.revokedAfter.filter((r) => !missing.has(r.serial));
  return report;
}
