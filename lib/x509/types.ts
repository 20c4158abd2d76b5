/**
 * The JSON shapes of docs/COMPATIBILITY.md §2, as TypeScript types. These are the API's values: what the
 * engine produces when it reads a certificate and what it accepts when it builds one.
 */
import type { EllipticCurveName } from './curves';

export interface NameAttribute {
  oid: string;
  value: string;
}
export type Name = NameAttribute[];

export type OtherNameType =
  'UTF8String' | 'UNIVERSALSTRING' | 'IA5STRING' | 'BOOLEAN' | 'NULL' | 'INTEGER' | 'OctetString' | 'UTCTIME' | 'GENERALIZEDTIME';

export interface OtherName {
  oid: string;
  type: OtherNameType;
  /** string | boolean | null | integer (number, or bigint when it does not fit a double exactly) */
  value: unknown;
}

export type GeneralName =
  | { type: 'DNS' | 'email' | 'URI' | 'IP' | 'RID'; value: string }
  | { type: 'dirName'; value: Name }
  | { type: 'otherName'; value: OtherName };

export type GeneralNameType = GeneralName['type'];

/** Every extension type key of docs/COMPATIBILITY.md §2 */
export type ExtensionType =
  | 'admissions'
  | 'authority_information_access'
  | 'authority_key_identifier'
  | 'basic_constraints'
  | 'certificate_policies'
  | 'crl_distribution_points'
  | 'extended_key_usage'
  | 'freshest_crl'
  | 'inhibit_any_policy'
  | 'issuer_alternative_name'
  | 'key_usage'
  | 'ms_certificate_template'
  | 'name_constraints'
  | 'ocsp_no_check'
  | 'policy_constraints'
  | 'precert_poison'
  | 'precertificate_signed_certificate_timestamps'
  | 'private_key_usage_period'
  | 'signed_certificate_timestamps'
  | 'subject_alternative_name'
  | 'subject_information_access'
  | 'subject_key_identifier'
  | 'tls_feature'
  | 'unknown';

/** The extension envelope of docs/COMPATIBILITY.md §2 `value`'s shape depends on `type` (§6). */
export interface Extension<V = unknown> {
  type: ExtensionType;
  critical: boolean;
  value: V;
}

/**
 * The hash algorithms of docs/COMPATIBILITY.md §2 that signing accepts, in the order the API lists them (also
 * the order of the fingerprint keys, §2.2).
 */
export const HASH_ALGORITHMS = ['SHA-224', 'SHA-256', 'SHA-384', 'SHA-512', 'SHA3/224', 'SHA3/256', 'SHA3/384', 'SHA3/512'] as const;

export type HashAlgorithmName = (typeof HASH_ALGORITHMS)[number];

/** Display-only names a certificate's signature may report. */
export type SignatureHashName = HashAlgorithmName | 'MD5' | 'SHA1';

export type SignatureAlgorithmParameters =
  | { name: 'EMSA-PKCS1-v1_5' }
  | { name: 'EMSA-PSS'; salt_length: number; mgf: { algorithm: SignatureHashName } }
  | { algorithm: SignatureHashName; deterministic_signing: false }
  | null;

export type Fingerprints = Record<HashAlgorithmName, string>;

/** docs/COMPATIBILITY.md §2: the `certificate` field of CA and certificate records. */
export interface CertificateJson {
  serial: string;
  version: number;
  not_valid_before: string;
  not_valid_after: string;
  issuer: Name;
  subject: Name;
  signature_hash_algorithm: SignatureHashName | null;
  signature_algorithm_oid: string;
  public_key_algorithm_oid: string;
  signature_algorithm_parameters: SignatureAlgorithmParameters;
  extensions: Extension[];
  pem: string;
}

export type KeyType = 'RSA' | 'DSA' | 'EC' | 'Ed25519' | 'Ed448';
/** Defined by the curve table (curves.ts), so that names and curves cannot drift apart. */
export type { EllipticCurveName };

/** What key to generate. */
export type KeySpec =
  | { keyType: 'RSA'; keySize: number }
  | { keyType: 'DSA'; keySize: number }
  | { keyType: 'EC'; curve: EllipticCurveName }
  | { keyType: 'Ed25519' }
  | { keyType: 'Ed448' };
