/**
 * What of an embedded data directory a backup keeps: PostgreSQL's files only.
 *
 * PGlite's `dumpDataDir` tars its whole data directory, and the example server's data directory
 * (`CA_DATA_DIR`, by default also the database's) holds more: the development key-encryption key,
 * the lock file, demo files. A backup that carried the key-encryption key next to the keys it
 * encrypts would protect nothing (docs/operations/backup-restore.md "What to keep"), so the tar is
 * filtered down to the entries PostgreSQL itself keeps in a data directory. The tar is PGlite's:
 * ustar, 512-byte records, no long names (every PostgreSQL path is short).
 */
import * as zlib from 'zlib';

const BLOCK = 512;

/** A data directory's own top-level entries (postmaster.pid is left out: no server runs the copy). */
const POSTGRES_ENTRY =
  /^\/?(PG_VERSION|base|global|pg_[a-z_]+|postgresql(\.auto)?\.conf|pg_hba\.conf|pg_ident\.conf|postmaster\.opts)(\/|$)/;

function field(header: Buffer, start: number, length: number): string {
  const text = header.subarray(start, start + length).toString('latin1');
  const end = text.indexOf('\0');
  return end < 0 ? text : text.slice(0, end);
}

export function entryName(header: Buffer): string {
  const prefix = field(header, 345, 155);
  const name = field(header, 0, 100);
  return prefix ? `${prefix}/${name}` : name;
}

/** The entries of a tar (names and their data), in order. */
export function tarEntries(tar: Buffer): { name: string; header: Buffer; data: Buffer }[] {
  const out: { name: string; header: Buffer; data: Buffer }[] = [];
  for (let offset = 0; offset + BLOCK <= tar.length;) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0) throw new Error('not a tar written by PGlite (bad entry size)');
    const dataEnd = offset + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (dataEnd > tar.length) throw new Error('a truncated tar (an entry runs past its end)');
    out.push({ name: entryName(header), header, data: tar.subarray(offset + BLOCK, dataEnd) });
    offset = dataEnd;
  }
  return out;
}

/** A gzipped tar of `dump`'s PostgreSQL entries only. */
export function postgresEntriesOnly(dump: Buffer): Buffer {
  const kept = tarEntries(zlib.gunzipSync(dump)).filter((e) => POSTGRES_ENTRY.test(e.name));
  if (!kept.some((e) => /^\/?PG_VERSION$/.test(e.name))) throw new Error('the dump holds no PostgreSQL data directory (no PG_VERSION)');
  return zlib.gzipSync(Buffer.concat([...kept.flatMap((e) => [e.header, e.data]), Buffer.alloc(2 * BLOCK)]));
}
