/**
 * Row ⇄ record mapping: snake_case columns of the tables in migrations/ to the camelCase records of
 * lib/ports.ts. Writers build rows with `*ToRow`, readers map with `rowTo*`.
 */
import type { CertificateJson, Extension, Fingerprints } from '../../../lib/x509/types';
import type {
  CaPatch,
  CaRecord,
  CertificateRecord,
  NewCa,
  NewCertificate,
  OrderRecord,
  OrderStatus,
  Permission,
  SignRequest,
  UserRecord,
  X509Record,
} from '../../../lib/ports';
import {
  fromJson,
  fromNullableJson,
  toBuffer,
  toDate,
  toJson,
  toNullableDate,
  toNullableJson,
  toNullableNumber,
  toNumber,
} from './values';

/** A row as a driver returns it; every column is checked and converted by the mappers below. */
export type Row = Record<string, unknown>;

function x509FromRow(row: Row): X509Record {
  return {
    id: toNumber(row.id),
    created: toDate(row.created),
    updated: toDate(row.updated),
    serial: String(row.serial),
    cn: String(row.cn),
    notBefore: toDate(row.not_before),
    notAfter: toDate(row.not_after),
    der: toBuffer(row.der),
    certificate: fromJson<CertificateJson>(row.certificate),
    fingerprints: fromJson<Fingerprints>(row.fingerprints),
    revoked: Boolean(row.revoked),
    revokedDate: toNullableDate(row.revoked_date),
    revokedReason: String(row.revoked_reason ?? ''),
    compromised: toNullableDate(row.compromised),
  };
}

function x509ToRow(record: Omit<X509Record, 'id' | 'created' | 'updated'>): Row {
  return {
    serial: record.serial,
    cn: record.cn,
    not_before: record.notBefore,
    not_after: record.notAfter,
    der: record.der,
    certificate: toJson(record.certificate),
    fingerprints: toJson(record.fingerprints),
    revoked: record.revoked,
    revoked_date: record.revokedDate,
    revoked_reason: record.revokedReason,
    compromised: record.compromised,
  };
}

// ---------------------------------------------------------------------------------------------------
// Certificate authorities

/** CaRecord field → column, for the fields a CaPatch may touch. */
const CA_PATCH_COLUMNS: Record<keyof CaPatch, string> = {
  name: 'name',
  enabled: 'enabled',
  apiEnabled: 'api_enabled',
  caaIdentity: 'caa_identity',
  website: 'website',
  termsOfService: 'terms_of_service',
  ocspResponderKeyValidity: 'ocsp_responder_key_validity',
  ocspResponseValidity: 'ocsp_response_validity',
  acmeEnabled: 'acme_enabled',
  acmeRegistration: 'acme_registration',
  acmeProfile: 'acme_profile',
  acmeRequiresContact: 'acme_requires_contact',
  signAuthorityInformationAccess: 'sign_authority_information_access',
  signCertificatePolicies: 'sign_certificate_policies',
  signCrlDistributionPoints: 'sign_crl_distribution_points',
  signIssuerAlternativeName: 'sign_issuer_alternative_name',
};

const JSON_PATCH_FIELDS = new Set<keyof CaPatch>([
  'signAuthorityInformationAccess',
  'signCertificatePolicies',
  'signCrlDistributionPoints',
  'signIssuerAlternativeName',
]);

export function caFromRow(row: Row): CaRecord {
  return {
    ...x509FromRow(row),
    name: String(row.name),
    enabled: Boolean(row.enabled),
    apiEnabled: Boolean(row.api_enabled),
    parentId: toNullableNumber(row.parent_id),
    keyBackendAlias: String(row.key_backend_alias),
    keyBackendOptions: fromNullableJson<Record<string, unknown>>(row.key_backend_options),
    signAuthorityInformationAccess: fromNullableJson<Extension>(row.sign_authority_information_access),
    signCertificatePolicies: fromNullableJson<Extension>(row.sign_certificate_policies),
    signCrlDistributionPoints: fromNullableJson<Extension>(row.sign_crl_distribution_points),
    signIssuerAlternativeName: fromNullableJson<Extension>(row.sign_issuer_alternative_name),
    caaIdentity: String(row.caa_identity),
    website: String(row.website),
    termsOfService: String(row.terms_of_service),
    ocspKeyBackendAlias: String(row.ocsp_key_backend_alias),
    ocspResponderKeyValidity: toNumber(row.ocsp_responder_key_validity),
    ocspResponseValidity: toNumber(row.ocsp_response_validity),
    acmeEnabled: Boolean(row.acme_enabled),
    acmeRegistration: Boolean(row.acme_registration),
    acmeProfile: String(row.acme_profile),
    acmeRequiresContact: Boolean(row.acme_requires_contact),
  };
}

export function newCaToRow(ca: NewCa): Row {
  return {
    ...x509ToRow(ca),
    name: ca.name,
    enabled: ca.enabled,
    api_enabled: ca.apiEnabled,
    parent_id: ca.parentId,
    key_backend_alias: ca.keyBackendAlias,
    key_backend_options: toNullableJson(ca.keyBackendOptions),
    sign_authority_information_access: toNullableJson(ca.signAuthorityInformationAccess),
    sign_certificate_policies: toNullableJson(ca.signCertificatePolicies),
    sign_crl_distribution_points: toNullableJson(ca.signCrlDistributionPoints),
    sign_issuer_alternative_name: toNullableJson(ca.signIssuerAlternativeName),
    caa_identity: ca.caaIdentity,
    website: ca.website,
    terms_of_service: ca.termsOfService,
    ocsp_key_backend_alias: ca.ocspKeyBackendAlias,
    ocsp_responder_key_validity: ca.ocspResponderKeyValidity,
    ocsp_response_validity: ca.ocspResponseValidity,
    acme_enabled: ca.acmeEnabled,
    acme_registration: ca.acmeRegistration,
    acme_profile: ca.acmeProfile,
    acme_requires_contact: ca.acmeRequiresContact,
  };
}

/** Only the keys present in the patch become columns ("presence, not value, decides"). */
export function caPatchToRow(patch: CaPatch): Row {
  const row: Row = {};
  for (const key of Object.keys(patch) as (keyof CaPatch)[]) {
    const column = CA_PATCH_COLUMNS[key];
    if (!column) continue; // not a patchable field: ignore rather than write an unknown column
    const value = patch[key];
    row[column] = JSON_PATCH_FIELDS.has(key) ? toNullableJson(value) : value;
  }
  return row;
}

// ---------------------------------------------------------------------------------------------------
// Certificates

export type Watcher = CertificateRecord['watchers'][number];

export function certificateFromRow(row: Row, watchers: Watcher[] = []): CertificateRecord {
  return {
    ...x509FromRow(row),
    caId: toNumber(row.ca_id),
    csr: row.csr === null || row.csr === undefined ? null : String(row.csr),
    profile: String(row.profile),
    autogenerated: Boolean(row.autogenerated),
    watchers,
  };
}

export function newCertificateToRow(cert: NewCertificate): Row {
  return {
    ...x509ToRow(cert),
    ca_id: cert.caId,
    csr: cert.csr,
    profile: cert.profile,
    autogenerated: cert.autogenerated,
  };
}

export function watcherFromRow(row: Row): Watcher {
  return { id: toNumber(row.id), name: String(row.name), mail: String(row.mail) };
}

// ---------------------------------------------------------------------------------------------------
// Orders (rows joined with the certificate's serial as `certificate_serial`)

export function orderFromRow(row: Row): OrderRecord {
  return {
    id: toNumber(row.id),
    created: toDate(row.created),
    updated: toDate(row.updated),
    slug: String(row.slug),
    caId: toNumber(row.ca_id),
    userId: toNumber(row.user_id),
    status: String(row.status) as OrderStatus,
    certificateSerial:
      row.certificate_serial === null || row.certificate_serial === undefined ? null : String(row.certificate_serial),
    certificateId: toNullableNumber(row.certificate_id),
    error: row.error === null || row.error === undefined ? null : String(row.error),
    request: fromJson<SignRequest>(row.request),
    leaseOwner: row.lease_owner === null || row.lease_owner === undefined ? null : String(row.lease_owner),
    leaseExpires: toNullableDate(row.lease_expires),
  };
}

// ---------------------------------------------------------------------------------------------------
// Users

export function userFromRow(row: Row, permissions: Permission[]): UserRecord {
  return {
    id: toNumber(row.id),
    username: String(row.username),
    passwordHash: String(row.password_hash),
    updated: toDate(row.updated),
    permissions,
  };
}
