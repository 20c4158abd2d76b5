/**
 * `AcmeNonceStore` (lib/ports/acme.ts) on `ca_api_acme_nonces` (migration 0005): one row per live
 * nonce. Accepting a nonce deletes its row in the same statement that checks it, so it is accepted
 * once across every instance on the database.
 *
 * Every ACME request mints one nonce and (a POST) uses one: the root store groups those of
 * concurrent requests (group-commit.ts), so that many mints and many uses together cost one
 * statement (`nonceOps`).
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
  await afterMinting(db, rows.length);
  return rows.map((r) => r.nonce);
}

/** Every SWEEP_EVERY nonces minted, the expired ones go. */
async function afterMinting(db: Knex, count: number): Promise<void> {
  const before = minted;
  minted += count;
  if (Math.floor(before / SWEEP_EVERY) !== Math.floor(minted / SWEEP_EVERY)) await sweepExpired(db);
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

/** A mint (a nonce valid for `ttlMs`) or a use (accept `nonce` once), for `nonceOps`. */
export type NonceOp = { mint: number } | { use: string };

/**
 * Mints and uses together in ONE statement — the DELETE of the nonces used and the INSERT of those
 * minted as two parts of one `WITH` — or the one of the two there is. Results in input order: the new
 * nonce of a mint, whether a use was accepted.
 */
export async function nonceOps(db: Knex, ops: NonceOp[]): Promise<(string | boolean)[]> {
  const ttls = ops.flatMap((op) => ('mint' in op ? [op.mint] : []));
  const uses = ops.flatMap((op) => ('use' in op ? [op.use] : []));
  if (uses.length === 0) return answer(ops, await createAcmeNonces(db, ttls), []);
  if (ttls.length === 0) return answer(ops, [], await consumeAcmeNonces(db, uses));
  ttls.forEach(checkNonceTtl);
  const wellFormed = [...new Set(uses.filter((n) => typeof n === 'string' && NONCE_SHAPE.test(n)))];
  const now = Date.now();
  const rows = ttls.map((ttlMs) => ({ nonce: randomBytes(32).toString('base64url'), expires: new Date(now + ttlMs) }));
  const result = (await db.raw(
    `WITH used AS (DELETE FROM ?? WHERE nonce IN (${wellFormed.length ? wellFormed.map(() => '?').join(', ') : 'NULL'}) AND expires > ? RETURNING nonce),
     minted AS (INSERT INTO ?? (nonce, expires) VALUES ${rows.map(() => '(?, ?)').join(', ')})
     SELECT nonce FROM used`,
    [TABLES.acmeNonces, ...wellFormed, new Date(now), TABLES.acmeNonces, ...rows.flatMap((r) => [r.nonce, r.expires])],
  )) as { rows: Row[] };
  await afterMinting(db, rows.length);
  const accepted = new Set(result.rows.map((r) => String(r.nonce)));
  return answer(
    ops,
    rows.map((r) => r.nonce),
    uses.map((n) => accepted.delete(n)),
  );
}

/** Each op's result, taken in turn from the mints' nonces and the uses' verdicts. */
function answer(ops: NonceOp[], minted: string[], used: boolean[]): (string | boolean)[] {
  let m = 0;
  let u = 0;
  return ops.map((op) => ('mint' in op ? minted[m++] : used[u++]));
}

/**
 * The root store's nonces: the mints and uses of concurrent requests grouped into one statement
 * (group-commit.ts, `nonceOps`). A ttl that is not positive is the caller's mistake, refused before
 * it joins a group.
 */
export class GroupedNonces {
  private readonly ops: GroupCommit<NonceOp, string | boolean>;

  constructor(db: Knex) {
    this.ops = new GroupCommit(
      (ops) => nonceOps(db, ops),
      async (op) => (await nonceOps(db, [op]))[0],
    );
  }

  async create(ttlMs: number): Promise<string> {
    checkNonceTtl(ttlMs);
    return (await this.ops.write({ mint: ttlMs })) as string;
  }

  async consume(nonce: string): Promise<boolean> {
    return (await this.ops.write({ use: nonce })) as boolean;
  }
}
