/**
 * The CA's own fields (beyond the certificate columns every stored certificate has): ONE list, from
 * which the store's row mapping (adapters/store/knex/rows.ts), the API's JSON (serialize.ts) and the
 * model defaults of a new CA (records.ts) are derived. Each field has its record key, its snake_case
 * name — both the column and the API JSON key, except `parent_id`, which the API calls `parent` — the
 * kind of value, whether a `CaPatch` may change it, and its model default (docs/COMPATIBILITY.md §2.9).
 *
 * The compiler holds the list to the ports: every CaRecord field is here exactly once (but
 * `keyBackendOptions`, backend-private and never serialised, and `issuancePolicy`, ours and kept out
 * of django-ca's CA JSON: the store maps it apart), and `patchable` is true exactly for the keys of
 * `CaPatch`.
 */
import type { CaPatch, CaRecord, X509Record } from './records';

/**
 * CA_DEFAULT_PROFILE: the profile a sign request names when it names none, and a new CA's ACME
 * profile. Here, beside the field whose model default it is, so that the store's row mapping reads it
 * without the profiles' rules (lib/ca/profiles.ts).
 */
export const DEFAULT_PROFILE_NAME = 'webserver';

export type CaFieldKind = 'string' | 'number' | 'boolean' | 'json' | 'id';

/** CaRecord keys of the CA's own fields. */
export type CaFieldKey = Exclude<keyof CaRecord, keyof X509Record | 'keyBackendOptions' | 'issuancePolicy'>;

interface FieldSpec<K extends CaFieldKey> {
  name: string;
  kind: CaFieldKind;
  patchable: K extends keyof CaPatch ? true : false;
  /** The value of a new CA when its creator gives none; absent → the creator must give one. */
  default?: CaRecord[K];
}

const SPECS = {
  name: { name: 'name', kind: 'string', patchable: true },
  enabled: { name: 'enabled', kind: 'boolean', patchable: true, default: true },
  parentId: { name: 'parent_id', kind: 'id', patchable: false },
  keyBackendAlias: { name: 'key_backend_alias', kind: 'string', patchable: false },
  signAuthorityInformationAccess: { name: 'sign_authority_information_access', kind: 'json', patchable: true, default: null },
  signCertificatePolicies: { name: 'sign_certificate_policies', kind: 'json', patchable: true, default: null },
  signCrlDistributionPoints: { name: 'sign_crl_distribution_points', kind: 'json', patchable: true, default: null },
  signIssuerAlternativeName: { name: 'sign_issuer_alternative_name', kind: 'json', patchable: true, default: null },
  caaIdentity: { name: 'caa_identity', kind: 'string', patchable: true, default: '' },
  website: { name: 'website', kind: 'string', patchable: true, default: '' },
  termsOfService: { name: 'terms_of_service', kind: 'string', patchable: true, default: '' },
  ocspKeyBackendAlias: { name: 'ocsp_key_backend_alias', kind: 'string', patchable: false, default: 'default' },
  ocspResponderKeyValidity: { name: 'ocsp_responder_key_validity', kind: 'number', patchable: true, default: 3 },
  ocspResponseValidity: { name: 'ocsp_response_validity', kind: 'number', patchable: true, default: 86400 },
  acmeEnabled: { name: 'acme_enabled', kind: 'boolean', patchable: true, default: false },
  acmeRegistration: { name: 'acme_registration', kind: 'boolean', patchable: true, default: true },
  acmeProfile: { name: 'acme_profile', kind: 'string', patchable: true, default: DEFAULT_PROFILE_NAME },
  acmeRequiresContact: { name: 'acme_requires_contact', kind: 'boolean', patchable: true, default: true },
  apiEnabled: { name: 'api_enabled', kind: 'boolean', patchable: true, default: false },
} as const satisfies { [K in CaFieldKey]: FieldSpec<K> };

export interface CaField {
  key: CaFieldKey;
  /** Column and API JSON key (the API says `parent` for `parent_id`). */
  name: string;
  kind: CaFieldKind;
  /** Changeable through a `CaPatch` (API `PUT /ca/{serial}/`, `edit_ca`). */
  patchable: boolean;
  /** The model default of a new CA; absent when the creator must give the value. */
  default?: CaRecord[CaFieldKey];
}

/** In the API's key order (docs/COMPATIBILITY.md §2.9, the CA record). */
export const CA_FIELDS: readonly CaField[] = (Object.keys(SPECS) as CaFieldKey[]).map((key) => ({ key, ...SPECS[key] }));

/** Patch key → field, for the fields a `CaPatch` may change. */
export const CA_PATCH_FIELDS: ReadonlyMap<keyof CaPatch, CaField> = new Map(
  CA_FIELDS.filter((f) => f.patchable).map((f) => [f.key as keyof CaPatch, f]),
);

/** The API JSON key of a field: its column name, but `parent` for `parent_id` (the original's name). */
export function caJsonKey(field: CaField): string {
  return field.name === 'parent_id' ? 'parent' : field.name;
}

type JsonKey<N extends string> = N extends 'parent_id' ? 'parent' : N;

/** The CA's own fields as the API writes them: `{ name, enabled, parent, ..., api_enabled }`. */
export type CaFieldsJson = {
  [K in CaFieldKey as JsonKey<(typeof SPECS)[K]['name']>]: CaRecord[K];
};

/** Record keys of the fields a new CA may leave out (they have a model default). */
export type CaDefaultedKey = { [K in CaFieldKey]: (typeof SPECS)[K] extends { default: unknown } ? K : never }[CaFieldKey];
