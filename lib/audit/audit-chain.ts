/**
 * The audit log's hash chain (docs/DESIGN.md "Audit log"), recomputed here from the stored texts —
 * never with the database's own function (migration 0011), which someone who can change rows can
 * also replace.
 *
 * hash(n) = hex SHA-256 of UTF-8 `hash(n-1) | f(id) f(created) f(type) f(actor) f(ca_serial) f(serial) f(data)`
 * where f(v) is `-` for NULL, else `<length in bytes>:<v>`, `created` is the commit time in UTC to the
 * microsecond, and the JSON fields are the texts as stored. hash(0) is 64 zeros.
 */
import { createHash } from 'crypto';
import type { AuditLog, AuditRow } from '../ports';

export const GENESIS_HASH = '0'.repeat(64);

const field = (v: string | null): string => (v === null ? '-' : `${Buffer.byteLength(v, 'utf8')}:${v}`);

/** The hash `row` must carry when it follows a record whose hash is `previous`. */
export function auditHash(previous: string, row: Omit<AuditRow, 'hash'>): string {
  const text =
    `${previous}|` +
    field(String(row.id)) +
    field(row.created) +
    field(row.type) +
    field(row.actorText) +
    field(row.caSerial) +
    field(row.serial) +
    field(row.dataText);
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export type AuditChainVerdict =
  | { intact: true; records: number; head: string }
  /** `brokenAt`: the first record whose hash does not follow from the one before it (changed, or a record before it removed). */
  | { intact: false; records: number; brokenAt: number; previousId: number | null };

/**
 * Walk the whole chain in id order, a page at a time (nothing held but the previous hash), and name
 * the first record whose stored hash is not the hash of its own fields after the previous record's.
 * Each record is checked against the *stored* hash of the one before, so one changed record is named
 * alone rather than every record after it.
 */
export async function verifyAuditChain(log: AuditLog, pageSize = 1000): Promise<AuditChainVerdict> {
  let previous = GENESIS_HASH;
  let previousId: number | null = null;
  let records = 0;
  for (let afterId = 0; ;) {
    const page = await log.auditRows({ afterId, limit: pageSize });
    for (const row of page) {
      if (auditHash(previous, row) !== row.hash) return { intact: false, records, brokenAt: row.id, previousId };
      previous = row.hash;
      previousId = row.id;
      records++;
    }
    if (!page.length) return { intact: true, records, head: previous };
    afterId = page[page.length - 1].id;
  }
}
