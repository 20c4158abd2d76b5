/**
 * Object identifiers and their API aliases (docs/COMPATIBILITY.md §2). Aliases are accepted on
 * input only; output is always the dotted form.
 */
import { encodedArcs } from './oid-der';

/** Name attribute aliases → dotted OID. The first alias of each OID is its long name. */
export const NAME_OID_ALIASES: Readonly<Record<string, string>> = {
  businessCategory: '2.5.4.15',
  commonName: '2.5.4.3',
  CN: '2.5.4.3',
  countryName: '2.5.4.6',
  C: '2.5.4.6',
  dnQualifier: '2.5.4.46',
  domainComponent: '0.9.2342.19200300.100.1.25',
  DC: '0.9.2342.19200300.100.1.25',
  emailAddress: '1.2.840.113549.1.9.1',
  generationQualifier: '2.5.4.44',
  givenName: '2.5.4.42',
  initials: '2.5.4.43',
  inn: '1.2.643.3.131.1.1',
  jurisdictionCountryName: '1.3.6.1.4.1.311.60.2.1.3',
  jurisdictionLocalityName: '1.3.6.1.4.1.311.60.2.1.1',
  jurisdictionStateOrProvinceName: '1.3.6.1.4.1.311.60.2.1.2',
  localityName: '2.5.4.7',
  L: '2.5.4.7',
  ogrn: '1.2.643.100.1',
  organizationalUnitName: '2.5.4.11',
  OU: '2.5.4.11',
  organizationName: '2.5.4.10',
  O: '2.5.4.10',
  organizationIdentifier: '2.5.4.97',
  postalAddress: '2.5.4.16',
  postalCode: '2.5.4.17',
  pseudonym: '2.5.4.65',
  serialNumber: '2.5.4.5',
  snils: '1.2.643.100.3',
  stateOrProvinceName: '2.5.4.8',
  ST: '2.5.4.8',
  street: '2.5.4.9',
  streetAddress: '2.5.4.9',
  surname: '2.5.4.4',
  SN: '2.5.4.4',
  title: '2.5.4.12',
  unstructuredName: '1.2.840.113549.1.9.2',
  uid: '0.9.2342.19200300.100.1.1',
  userid: '0.9.2342.19200300.100.1.1',
  x500UniqueIdentifier: '2.5.4.45',
};

/** Dotted OID → long name (first alias in the table). */
export const NAME_OID_LONG_NAMES: Readonly<Record<string, string>> = (() => {
  const out: Record<string, string> = {};
  for (const [alias, dotted] of Object.entries(NAME_OID_ALIASES)) if (!(dotted in out)) out[dotted] = alias;
  return out;
})();

export const OID_COMMON_NAME = '2.5.4.3';
export const OID_COUNTRY_NAME = '2.5.4.6';
export const OID_JURISDICTION_COUNTRY_NAME = '1.3.6.1.4.1.311.60.2.1.3';
export const OID_X500_UNIQUE_IDENTIFIER = '2.5.4.45';

/** Name attributes that may occur more than once in one Name. */
export const MULTI_VALUED_NAME_OIDS: ReadonlySet<string> = new Set([
  '0.9.2342.19200300.100.1.25', // domainComponent
  '2.5.4.11', // organizationalUnitName
  '2.5.4.9', // street
]);

export const EXTENDED_KEY_USAGE_ALIASES: Readonly<Record<string, string>> = {
  anyExtendedKeyUsage: '2.5.29.37.0',
  bundleSecurity: '1.3.6.1.5.5.7.3.35',
  certificateTransparency: '1.3.6.1.4.1.11129.2.4.4',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  emailProtection: '1.3.6.1.5.5.7.3.4',
  ipsecEndSystem: '1.3.6.1.5.5.7.3.5',
  ipsecIKE: '1.3.6.1.5.5.7.3.17',
  ipsecTunnel: '1.3.6.1.5.5.7.3.6',
  ipsecUser: '1.3.6.1.5.5.7.3.7',
  msKDC: '1.3.6.1.5.2.3.5',
  mdlDS: '1.0.18013.5.1.2',
  mdlJWS: '1.0.18013.5.1.3',
  OCSPSigning: '1.3.6.1.5.5.7.3.9',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  smartcardLogon: '1.3.6.1.4.1.311.20.2.2',
  timeStamping: '1.3.6.1.5.5.7.3.8',
};

export const ACCESS_METHOD_ALIASES: Readonly<Record<string, string>> = {
  ocsp: '1.3.6.1.5.5.7.48.1',
  ca_issuers: '1.3.6.1.5.5.7.48.2',
  ca_repository: '1.3.6.1.5.5.7.48.5',
};

/** Extension OIDs by API type key (docs/COMPATIBILITY.md §2). `unknown` has none. */
export const EXTENSION_OIDS = {
  admissions: '1.3.36.8.3.3',
  authority_information_access: '1.3.6.1.5.5.7.1.1',
  authority_key_identifier: '2.5.29.35',
  basic_constraints: '2.5.29.19',
  certificate_policies: '2.5.29.32',
  crl_distribution_points: '2.5.29.31',
  extended_key_usage: '2.5.29.37',
  freshest_crl: '2.5.29.46',
  inhibit_any_policy: '2.5.29.54',
  issuer_alternative_name: '2.5.29.18',
  key_usage: '2.5.29.15',
  ms_certificate_template: '1.3.6.1.4.1.311.21.7',
  name_constraints: '2.5.29.30',
  ocsp_no_check: '1.3.6.1.5.5.7.48.1.5',
  policy_constraints: '2.5.29.36',
  precert_poison: '1.3.6.1.4.1.11129.2.4.3',
  precertificate_signed_certificate_timestamps: '1.3.6.1.4.1.11129.2.4.2',
  private_key_usage_period: '2.5.29.16',
  signed_certificate_timestamps: '1.3.6.1.4.1.11129.2.4.5',
  subject_alternative_name: '2.5.29.17',
  subject_information_access: '1.3.6.1.5.5.7.1.11',
  subject_key_identifier: '2.5.29.14',
  tls_feature: '1.3.6.1.5.5.7.1.24',
} as const;

/**
 * Syntactic check of a dotted OID, as cryptography's ObjectIdentifier accepts it: at least two arcs,
 * decimal without leading zeros, first arc 0–2, second arc < 40 under arcs 0 and 1 — and, beyond
 * that, every encoded arc within `MAX_ARC_BITS` (256; a UUID arc takes 128), which our DER codec
 * writes (oid-der.ts), so such an OID is refused on input rather than failing when it is signed.
 */
export function isValidOid(text: string): boolean {
  return encodedArcs(text) !== null;
}
