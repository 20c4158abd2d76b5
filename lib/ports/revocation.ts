/**
 * Ports of revocation serving (CRLs, OCSP): a part of the Store port (lib/ports/index.ts
 * re-exports everything here, so adapters and hosts import it from there like every other port).
 */

/** Which certificates of a CA a CRL covers: end-entity certificates, or its child CAs. */
export type CrlScope = 'user' | 'ca';

/** One revoked certificate, as a CRL entry or an OCSP answer needs it. */
export interface RevokedCertificate {
  serial: string;
  revokedDate: Date;
  revokedReason: string;
  compromised: Date | null;
}

/** What a CA's OCSP responder is: its key (backend options) and its certificate's serial. */
export interface OcspResponderRecord {
  keyBackendOptions: Record<string, unknown>;
  certificateSerial: string;
}

/**
 * Part of `Store`, behind the CRL and OCSP endpoints (docs/DESIGN.md "Revocation serving").
 * All reads go to the database, never to a cache, so every instance on one PostgreSQL answers alike.
 */
export interface RevocationStore {
  /**
   * Revoked end-entity certificates (`user`) or revoked child CAs (`ca`) of the CA whose validity
   * overlaps `[from, to]`, ordered by serial.
   */
  listRevoked(caId: number, scope: CrlScope, window: { from: Date; to: Date }): Promise<RevokedCertificate[]>;
  /**
   * The next CRL number of (CA, scope): the last one + 1, or `atLeast` when that is higher (1 without
   * it) — atomic, never handed out twice, never lower than one handed out before. CrlPublisher passes a
   * floor derived from the time (lib/ca/crl-number.ts), so that a database restored from a backup
   * still numbers its next CRL above every CRL published before the restore.
   */
  nextCrlNumber(caId: number, scope: CrlScope | 'all', atLeast?: bigint): Promise<bigint>;
  /**
   * A counter that grows whenever a certificate or a child CA of this CA is revoked (in the same
   * transaction as the revocation): what a cached CRL or OCSP answer is checked against.
   */
  revocationVersion(caId: number): Promise<number>;
  /** The CA's OCSP responder, or null when none was made yet. */
  getOcspResponder(caId: number): Promise<OcspResponderRecord | null>;
  setOcspResponder(caId: number, responder: OcspResponderRecord): Promise<void>;
}
