/**
 * The knex store's `MetricsReadings` (lib/ports/metrics-readings.ts), read by the metrics endpoint
 * (docs/operations/metrics.md) when it is scraped or follows the domain events, never on the request path:
 *
 * - pending orders per CA, through the partial index of pending orders (`ca_api_orders_pending_idx`);
 * - profile and key type of certificates named by events, through the `(ca_id, serial)` unique
 *   index; the key type is the public-key algorithm of the certificate's stored JSON;
 * - background jobs per kind and state (jobs.ts);
 * - the connection pool that knex keeps (tarn): PostgreSQL's connections, or PGlite's one.
 */
import type { Knex } from 'knex';
import {
  certificateKey,
  type CertificateFacts,
  type CertificateRef,
  type ConnectionPoolState,
  type JobCount,
  type MetricsReadings,
} from '../../../lib/ports';
import {
  OID_DSA,
  OID_EC_PUBLIC_KEY,
  OID_ED25519,
  OID_ED448,
  OID_RSA_ENCRYPTION,
  OID_RSASSA_PSS,
} from '../../../lib/x509/key-algorithm-oids';
import type { KeyType } from '../../../lib/x509/types';
import { mappingErrors } from './errors';
import { KnexJobStore } from './jobs';
import type { Row } from './rows';
import { TABLES } from './tables';
import { toNumber } from './values';

const KEY_TYPES: Readonly<Record<string, KeyType>> = {
  [OID_RSA_ENCRYPTION]: 'RSA',
  [OID_RSASSA_PSS]: 'RSA',
  [OID_EC_PUBLIC_KEY]: 'EC',
  [OID_DSA]: 'DSA',
  [OID_ED25519]: 'Ed25519',
  [OID_ED448]: 'Ed448',
};

/** Certificates looked up per statement (two bindings each). */
const REFS_PER_STATEMENT = 500;

/** What knex's pool (tarn) tells about itself. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

function isTarnPool(pool: unknown): pool is TarnPool {
  const p = pool as Partial<TarnPool> | null | undefined;
  return typeof p?.numUsed === 'function' && typeof p.numFree === 'function' && typeof p.numPendingAcquires === 'function';
}

export class KnexMetricsReadings implements MetricsReadings {
  constructor(private readonly db: Knex) {}

  jobCounts(): Promise<JobCount[]> {
    return new KnexJobStore(this.db).countJobs();
  }

  pendingOrders(): Promise<{ caName: string; caSerial: string; count: number }[]> {
    return mappingErrors(async () => {
      const rows = (await this.db(`${TABLES.orders} as o`)
        .join(`${TABLES.cas} as c`, 'c.id', 'o.ca_id')
        .where('o.status', 'pending')
        .groupBy('c.id', 'c.name', 'c.serial')
        .select('c.name', 'c.serial')
        .count('* as count')) as Row[];
      return rows.map((r) => ({ caName: String(r.name), caSerial: String(r.serial), count: toNumber(r.count) }));
    });
  }

  certificateFacts(refs: readonly CertificateRef[]): Promise<Map<string, CertificateFacts>> {
    return mappingErrors(async () => {
      const facts = new Map<string, CertificateFacts>();
      for (let start = 0; start < refs.length; start += REFS_PER_STATEMENT) {
        const chunk = refs.slice(start, start + REFS_PER_STATEMENT);
        const values = chunk.map(() => '(?::text, ?::text)').join(', ');
        const { rows } = (await this.db.raw(
          `SELECT r.ca_serial, r.serial, c.profile, c.certificate->>'public_key_algorithm_oid' AS key_oid
             FROM (VALUES ${values}) AS r (ca_serial, serial)
             JOIN ?? ca ON ca.serial = r.ca_serial
             JOIN ?? c ON c.ca_id = ca.id AND c.serial = r.serial`,
          [...chunk.flatMap((ref) => [ref.caSerial, ref.serial]), TABLES.cas, TABLES.certificates],
        )) as { rows: Row[] };
        for (const row of rows) {
          const key = certificateKey({ caSerial: String(row.ca_serial), serial: String(row.serial) });
          facts.set(key, { profile: String(row.profile ?? ''), keyType: KEY_TYPES[String(row.key_oid)] ?? null });
        }
      }
      return facts;
    });
  }

  connectionPool(): ConnectionPoolState | null {
    const pool: unknown = (this.db.client as { pool?: unknown }).pool;
    if (!isTarnPool(pool)) return null;
    return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
  }
}
