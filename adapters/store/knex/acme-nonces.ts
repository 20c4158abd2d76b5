/**
 * `AcmeNonceStore` (lib/ports/acme.ts, RFC 8555 §6.5) for every instance on one database.
 *
 * A nonce carries its own proof of origin: its expiry and 80 random bits, and a MAC over both under
 * the database's nonce key (migration 0010, made by whichever instance needs it first). Minting one
 * is therefore no database write at all — an ACME answer no longer waits for one (bench/acme) — and
 * a nonce no instance of this database minted, or one past its expiry, is refused without asking
 * the database. Using a nonce writes it to `ca_api_acme_nonces` (migration 0005, now the nonces
 * used): the INSERT that succeeds accepts it, so it is accepted once across every instance, and a
 * nonce is kept there only until its own expiry, after which its MAC refuses it anyway.
 *
 * The uses of concurrent requests share one INSERT (group-commit.ts); the expired rows are swept
 * every SWEEP_EVERY uses.
 */
import { createHmac, randomBytes, randomFillSync, timingSafeEqual } from 'crypto';
import type { Knex } from 'knex';
import { GroupCommit } from './group-commit';
import type { Row } from './rows';
import { TABLES } from './tables';

/** Every this many nonces used, the expired ones are deleted (a bounded statement, on the `expires` index). */
const SWEEP_EVERY = 256;
const SWEEP_BATCH = 5000;
/** A nonce is 43 base64url characters: 32 bytes — 6 of expiry (ms), 10 random, 16 of MAC. */
const NONCE_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const BODY_BYTES = 16;
const MAC_BYTES = 16;
const KEY_TABLE = 'ca_api_acme_nonce_key';

let used = 0;

function checkNonceTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive number of milliseconds');
}

function mac(key: Buffer, body: Buffer): Buffer {
  return createHmac('sha256', key).update(body).digest().subarray(0, MAC_BYTES);
}

/** A new nonce under `key`, good for `ttlMs`. */
export function mintNonce(key: Buffer, ttlMs: number, now = Date.now()): string {
  checkNonceTtl(ttlMs);
  const body = Buffer.alloc(BODY_BYTES);
  body.writeUIntBE(Math.min(now + Math.ceil(ttlMs), 2 ** 48 - 1), 0, 6);
  randomFillSync(body, 6);
  return Buffer.concat([body, mac(key, body)]).toString('base64url');
}

/**
 * When `nonce` expires (ms), if it was minted under `key` and written as minted; else null. The
 * encoding must be the canonical one: a 43-character base64url string has variants that decode to
 * the same bytes, and a variant of a used nonce must not pass for a new one.
 */
export function nonceExpiry(key: Buffer, nonce: unknown): number | null {
  if (typeof nonce !== 'string' || !NONCE_SHAPE.test(nonce)) return null;
  const raw = Buffer.from(nonce, 'base64url');
  if (raw.length !== BODY_BYTES + MAC_BYTES || raw.toString('base64url') !== nonce) return null;
  const body = raw.subarray(0, BODY_BYTES);
  if (!timingSafeEqual(mac(key, body), raw.subarray(BODY_BYTES))) return null;
  return body.readUIntBE(0, 6);
}

/** The database's nonce key, made now if there is none yet (whoever comes first wins; all read the same). */
export async function nonceKey(db: Knex): Promise<Buffer> {
  const read = async () => ((await db(KEY_TABLE).where({ id: 1 }).first()) as Row | undefined)?.key;
  let key = await read();
  if (!key) {
    await db(KEY_TABLE)
      .insert({ id: 1, key: randomBytes(32) })
      .onConflict('id')
      .ignore();
    key = await read();
  }
  if (!key) throw new Error('ACME nonce key missing after it was written');
  return Buffer.from(key as Uint8Array);
}

/**
 * Use `nonces` in one statement: for each, whether it is accepted — minted under `key`, not expired,
 * and not used before (its INSERT is the one that succeeds). A nonce named twice is accepted for its
 * first entry only.
 */
export async function useNonces(db: Knex, key: Buffer, nonces: readonly string[]): Promise<boolean[]> {
  const now = Date.now();
  const fresh = new Map<string, number>();
  nonces.forEach((nonce, index) => {
    const expires = nonceExpiry(key, nonce);
    if (expires !== null && expires > now && !fresh.has(nonce)) fresh.set(nonce, index);
  });
  if (fresh.size === 0) return nonces.map(() => false);
  const rows = [...fresh.keys()].map((nonce) => ({ nonce, expires: new Date(nonceExpiry(key, nonce) as number) }));
  const inserted = (await db(TABLES.acmeNonces).insert(rows).onConflict('nonce').ignore().returning('nonce')) as Row[];
  const before = used;
  used += rows.length;
  if (Math.floor(before / SWEEP_EVERY) !== Math.floor(used / SWEEP_EVERY)) await sweepExpired(db);
  const accepted = new Set(inserted.map((r) => String(r.nonce)));
  return nonces.map((nonce, index) => fresh.get(nonce) === index && accepted.has(nonce));
}

/** Delete up to SWEEP_BATCH used nonces past their expiry (their MAC refuses them by now anyway). */
export async function sweepExpired(db: Knex): Promise<number> {
  const result = (await db.raw(`DELETE FROM ?? WHERE nonce IN (SELECT nonce FROM ?? WHERE expires <= ? LIMIT ${SWEEP_BATCH})`, [
    TABLES.acmeNonces,
    TABLES.acmeNonces,
    new Date(),
  ])) as { rowCount?: number; affectedRows?: number };
  return result.rowCount ?? result.affectedRows ?? 0;
}

/**
 * A root store's nonces: the key read once (outside any transaction), the uses of concurrent
 * requests grouped into one statement. A store bound to a transaction passes its own `db`, on which
 * the key is read (and not kept: that transaction may yet roll back the key it made).
 */
export class StoreNonces {
  private key: Promise<Buffer> | null = null;
  private readonly uses: GroupCommit<string, boolean>;

  constructor(private readonly db: Knex) {
    this.uses = new GroupCommit(
      async (nonces) => useNonces(db, await this.keyOf(db), nonces),
      async (nonce) => (await useNonces(db, await this.keyOf(db), [nonce]))[0],
    );
  }

  private keyOf(db: Knex): Promise<Buffer> {
    if (db !== this.db) return nonceKey(db);
    this.key ??= nonceKey(db).catch((e: unknown) => {
      this.key = null; // the database was away: try again next time
      throw e;
    });
    return this.key;
  }

  async create(ttlMs: number, db: Knex = this.db): Promise<string> {
    checkNonceTtl(ttlMs);
    return mintNonce(await this.keyOf(db), ttlMs);
  }

  async consume(nonce: string, db: Knex = this.db): Promise<boolean> {
    if (db === this.db) return this.uses.write(nonce);
    return (await useNonces(db, await this.keyOf(db), [nonce]))[0];
  }
}
