/**
 * Optional store capability for the metrics endpoint (docs/operations/metrics.md): figures that only the
 * database has, read when the endpoint is scraped or while it follows the domain events — never on
 * the request path.
 */
import type { KeyType } from '../x509/types';
import type { JobCount } from './jobs';

/** A certificate named by its CA's serial and its own, as a domain event names it (lib/ports/events.ts). */
export interface CertificateRef {
  caSerial: string;
  serial: string;
}

/** What the metrics label a certificate with. */
export interface CertificateFacts {
  profile: string;
  /** The type of the certificate's public key; null when the stored certificate names an algorithm we do not know. */
  keyType: KeyType | null;
}

/** Connections of a store's pool. */
export interface ConnectionPoolState {
  /** Lent out to a query or transaction. */
  used: number;
  /** Open and idle. */
  free: number;
  /** Callers waiting for a connection. */
  pending: number;
}

export interface MetricsReadings {
  /** Sign orders `pending` now, per CA that has any (name and serial). */
  pendingOrders(): Promise<{ caName: string; caSerial: string; count: number }[]>;
  /** Profile and key type of stored certificates, keyed `${caSerial}:${serial}`; certificates not found are left out. */
  certificateFacts(refs: readonly CertificateRef[]): Promise<Map<string, CertificateFacts>>;
  /** Background jobs per kind and state (lib/ports/jobs.ts), for a store that keeps them. */
  jobCounts?(): Promise<JobCount[]>;
  /** The connection pool now, or null when the store has none. Synchronous: no query. */
  connectionPool(): ConnectionPoolState | null;
}

/** A store with the capability offers it as `metricsReadings`. */
export interface MetricsReadingsProvider {
  readonly metricsReadings: MetricsReadings;
}

export function hasMetricsReadings<S extends object>(store: S): store is S & MetricsReadingsProvider {
  const readings = (store as Partial<MetricsReadingsProvider>).metricsReadings;
  return typeof readings === 'object' && readings !== null && typeof readings.pendingOrders === 'function';
}

/** The key under which `certificateFacts` answers for `ref`. */
export const certificateKey = (ref: CertificateRef): string => `${ref.caSerial}:${ref.serial}`;
