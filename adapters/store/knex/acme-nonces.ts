/**
 * `AcmeNonceStore` (lib/ports/acme.ts) on `ca_api_acme_nonces` (migration 0005): one row per live
 * nonce. Accepting a nonce deletes its row in the same statement that checks it, so it is accepted
 * once across every instance on the database.
 */
import { randomBytes } from 'crypto';
import type { Knex } from 'knex';
import type { Row } from './rows';
import { TABLES } from './tables';

/** Every this many new nonces, the expired ones are deleted (a bounded statement, on the `expires` index). */
const SWEEP_EVERY = 256;
const SWEEP_BATCH = 5000;
/** A nonce is 43 base64url characters (32 bytes); anything else was never minted here. */
const NONCE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

let minted = 0;

export async function createAcmeNonce(db: Knex, ttlMs: number): Promise<string> {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive number of milliseconds');
  const nonce = randomBytes(32).toString('base64url');
  await db(TABLES.acmeNonces).insert({ nonce, expires: new Date(Date.now() + ttlMs) });
  if (++minted % SWEEP_EVERY === 0) await sweepExpired(db);
  return nonce;
}

export async function consumeAcmeNonce(db: Knex, nonce: string): Promise<boolean> {
  if (typeof nonce !== 'string' || !NONCE_SHAPE.test(nonce)) return false;
  const rows = (await db(TABLES.acmeNonces).where({ nonce }).andWhere('expires', '>', new Date()).del(['nonce'])) as Row[];
  return rows.length === 1;
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
