/**
 * `AcmeNonceStore` (lib/ports/acme.ts) on `ca_api_acme_nonces` (migration 0005): one row per live
 * nonce. Accepting a nonce deletes its row in the same statement that checks it, so it is accepted
 * once across every instance on the database.
 *
 * Every ACME request mints one nonce and (a POST) uses one: the root store groups those of
 * concurrent requests (group-commit.ts), so that many nonces cost one INSERT and many uses one
 * DELETE (`createAcmeNonces`, `consumeAcmeNonces`).
 */
import { randomBytes } from 'crypto';
import type { Knex } from 'knex';
import { GroupCommit } from './group-commit';
import type { Row } from './rows';
import { TABLES } from './tables';

/** Every this many new nonces, the expired ones are deleted (a bounded statement, on the `expires` index). */
const SWEEP_EVERY = 256;
const SWEEP_BATCH = 5000;
/** A nonce is 43 base64url characters (32 bytes); anything else was never minted here. */
const NONCE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

let minted = 0;

function checkNonceTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive number of milliseconds');
}

export async function createAcmeNonce(db: Knex, ttlMs: number): Promise<string> {
  return (await createAcmeNonces(db, [ttlMs]))[0];
}

/** One INSERT for a nonce per `ttlsMs` entry (each valid for that long); the nonces in the same order. */
export async function createAcmeNonces(db: Knex, ttlsMs: number[]): Promise<string[]> {
  ttlsMs.forEach(checkNonceTtl);
  const now = Date.now();
  const rows = ttlsMs.map((ttlMs) => ({ nonce: randomBytes(32).toString('base64url'), expires: new Date(now + ttlMs) }));
  await db(TABLES.acmeNonces).insert(rows);
  const before = minted;
  minted += rows.length;
  if (Math.floor(before / SWEEP_EVERY) !== Math.floor(minted / SWEEP_EVERY)) await sweepExpired(db);
  return rows.map((r) => r.nonce);
}

export async function consumeAcmeNonce(db: Knex, nonce: string): Promise<boolean> {
  return (await consumeAcmeNonces(db, [nonce]))[0];
}

/**
 * One DELETE for all of `nonces`: for each, whether it was accepted. A nonce named twice is accepted
 * for its first entry only (once, as ever).
 */
export async function consumeAcmeNonces(db: Knex, nonces: string[]): Promise<boolean[]> {
  const wellFormed = [...new Set(nonces.filter((n) => typeof n === 'string' && NONCE_SHAPE.test(n)))];
  if (wellFormed.length === 0) return nonces.map(() => false);
  const rows = (await db(TABLES.acmeNonces).whereIn('nonce', wellFormed).andWhere('expires', '>', new Date()).del(['nonce'])) as Row[];
  const accepted = new Set(rows.map((r) => String(r.nonce)));
  return nonces.map((n) => accepted.delete(n));
}

/** Delete up to SWEEP_BATCH expired nonces. */
export async function sweepExpired(db: Knex): Promise<number> {
  const result = (await db.raw(`DELETE FROM ?? WHERE nonce IN (SELECT nonce FROM ?? WHERE expires <= ? LIMIT ${SWEEP_BATCH})`, [
    TABLES.acmeNonces,
    TABLES.acmeNonces,
    new Date(),
  ])) as { rowCount?: number; affectedRows?: number };
  return result.rowCount ?? result.affectedRows ?? 0;
}

/**
 * The root store's nonces: the mints and uses of concurrent requests each grouped into one statement
 * (group-commit.ts). A ttl that is not positive is the caller's mistake, refused before it joins a group.
 */
export class GroupedNonces {
  private readonly minting: GroupCommit<number, string>;
  private readonly using: GroupCommit<string, boolean>;

  constructor(db: Knex) {
    this.minting = new GroupCommit(
      (ttls) => createAcmeNonces(db, ttls),
      (ttl) => createAcmeNonce(db, ttl),
    );
    this.using = new GroupCommit(
      (nonces) => consumeAcmeNonces(db, nonces),
      (nonce) => consumeAcmeNonce(db, nonce),
    );
  }

  async create(ttlMs: number): Promise<string> {
    checkNonceTtl(ttlMs);
    return this.minting.write(ttlMs);
  }

  consume(nonce: string): Promise<boolean> {
    return this.using.write(nonce);
  }
}
