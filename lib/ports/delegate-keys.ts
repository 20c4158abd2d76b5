/**
 * Part of `Store`: the keys a CA hands work to (docs/DESIGN.md "Enrolment") — today its
 * SCEP registration authority (RFC 8894 §2.1.2), an RSA key that decrypts SCEP requests and signs
 * their answers while the CA key signs only certificates and CRLs. One per CA and purpose.
 */

/** What a delegate key does for its CA. */
export type DelegatePurpose = 'scep_ra';

export interface DelegateKeyRecord {
  /** The key backend that holds the key (`KeyBackend.alias`). */
  keyBackendAlias: string;
  /** The backend's reference to the key (`StoredKey.options`); for the default backend, the key encrypted. */
  keyBackendOptions: Record<string, unknown>;
  /** Serial of the certificate the CA issued to the key (upper-case hex). */
  certificateSerial: string;
}

export interface DelegateKeyStore {
  /** The CA's delegate for `purpose`, or null when none was made yet. */
  getDelegateKey(caId: number, purpose: DelegatePurpose): Promise<DelegateKeyRecord | null>;
  /** Make `record` the CA's delegate for `purpose`, replacing any before it. */
  setDelegateKey(caId: number, purpose: DelegatePurpose, record: DelegateKeyRecord): Promise<void>;
}
