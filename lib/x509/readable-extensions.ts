/**
 * X.509 extensions (RFC 5280 §4.2) as readable text, for people: the admin pages and the CLI's text
 * output. Pure and plain text: no HTML (the caller escapes), no I/O. Each extension becomes a label, its
 * OID, its critical flag and lines such as `Digital signature`, `DNS: example.com`, `CA: yes, path
 * length 0` or `OCSP: http://ocsp.example.com`.
 *
 * The renderer table is keyed by every `ExtensionType`, so adding a type to types.ts fails the build
 * until it is given a label and its lines here. Values are the API values the parser produces
 * (extensions/*.ts); absent optional fields and empty lists render, an empty list as `(none)`.
 */
import type { AccessDescription } from './extensions/access-descriptions';
import type { AdmissionsValue } from './extensions/admissions';
import type { AuthorityKeyIdentifier } from './extensions/authority-key-identifier';
import type { BasicConstraintsValue } from './extensions/basic-constraints';
import type { PolicyInformation } from './extensions/certificate-policies';
import type { DistributionPoint } from './extensions/distribution-points';
import { codecByOid, type UnknownExtensionValue } from './extensions/index';
import type { KeyUsageName } from './extensions/key-usage';
import type { MsCertificateTemplateValue } from './extensions/ms-certificate-template';
import type { NameConstraints } from './extensions/name-constraints';
import type { PolicyConstraintsValue } from './extensions/policy-constraints';
import type { PrivateKeyUsagePeriodValue } from './extensions/private-key-usage-period';
import type { SignedCertificateTimestamp } from './extensions/signed-certificate-timestamps';
import type { TlsFeatureName } from './extensions/tls-feature';
import { EXTENSION_OIDS } from './oids';
import type { Extension, ExtensionType, GeneralName } from './types';
import {
  accessDescriptionLines,
  authorityKeyIdentifierLines,
  distributionPointsLines,
  generalNameLines,
  nameConstraintsLines,
} from './readable/names';
import { admissionsLines, msCertificateTemplateLines, privateKeyUsagePeriodLines, sctLines, unknownLines } from './readable/other';
import { certificatePoliciesLines, inhibitAnyPolicyLines, policyConstraintsLines } from './readable/policies';
import { base64Hex } from './readable/text';
import { basicConstraintsLines, extendedKeyUsageLines, keyUsageLines, tlsFeatureLines } from './readable/usages';

export interface ReadableExtension {
  /** The API type key (`key_usage`, …, `unknown`). */
  type: string;
  /** `Key usage`, `Subject alternative name`, …; `Unknown extension` for an OID the engine does not know. */
  label: string;
  /** The extension's dotted OID (extnID). */
  oid?: string;
  critical: boolean;
  /** Plain text, one item per line; none for the extensions whose presence is all they say. */
  lines: string[];
}

/** The API value of each extension type, as the parser produces it (docs/COMPATIBILITY.md §2). */
interface ExtensionValues {
  admissions: AdmissionsValue;
  authority_information_access: AccessDescription[];
  authority_key_identifier: AuthorityKeyIdentifier;
  basic_constraints: BasicConstraintsValue;
  certificate_policies: PolicyInformation[];
  crl_distribution_points: DistributionPoint[];
  extended_key_usage: string[];
  freshest_crl: DistributionPoint[];
  inhibit_any_policy: number;
  issuer_alternative_name: GeneralName[];
  key_usage: KeyUsageName[];
  ms_certificate_template: MsCertificateTemplateValue;
  name_constraints: NameConstraints;
  ocsp_no_check: null;
  policy_constraints: PolicyConstraintsValue;
  precert_poison: null;
  precertificate_signed_certificate_timestamps: SignedCertificateTimestamp[];
  private_key_usage_period: PrivateKeyUsagePeriodValue;
  signed_certificate_timestamps: SignedCertificateTimestamp[];
  subject_alternative_name: GeneralName[];
  subject_information_access: AccessDescription[];
  subject_key_identifier: string;
  tls_feature: TlsFeatureName[];
  unknown: UnknownExtensionValue;
}

interface Renderer<V> {
  label: string;
  lines(value: V): string[];
}

const noLines = (): string[] => [];

/** One entry per ExtensionType: a missing or extra key is a compile error. */
const RENDERERS: { readonly [T in ExtensionType]: Renderer<ExtensionValues[T]> } = {
  admissions: { label: 'Admissions', lines: admissionsLines },
  authority_information_access: { label: 'Authority information access', lines: accessDescriptionLines },
  authority_key_identifier: { label: 'Authority key identifier', lines: authorityKeyIdentifierLines },
  basic_constraints: { label: 'Basic constraints', lines: basicConstraintsLines },
  certificate_policies: { label: 'Certificate policies', lines: certificatePoliciesLines },
  crl_distribution_points: { label: 'CRL distribution points', lines: distributionPointsLines },
  extended_key_usage: { label: 'Extended key usage', lines: extendedKeyUsageLines },
  freshest_crl: { label: 'Freshest CRL', lines: distributionPointsLines },
  inhibit_any_policy: { label: 'Inhibit anyPolicy', lines: inhibitAnyPolicyLines },
  issuer_alternative_name: { label: 'Issuer alternative name', lines: generalNameLines },
  key_usage: { label: 'Key usage', lines: keyUsageLines },
  ms_certificate_template: { label: 'Microsoft certificate template', lines: msCertificateTemplateLines },
  name_constraints: { label: 'Name constraints', lines: nameConstraintsLines },
  // RFC 6960 §4.2.2.2.1: its presence says that the OCSP responder's certificate is not checked.
  ocsp_no_check: { label: 'OCSP no check', lines: noLines },
  policy_constraints: { label: 'Policy constraints', lines: policyConstraintsLines },
  // RFC 6962 §3.1: its presence makes the certificate a precertificate.
  precert_poison: { label: 'Precertificate poison', lines: noLines },
  precertificate_signed_certificate_timestamps: { label: 'Signed certificate timestamps', lines: sctLines },
  private_key_usage_period: { label: 'Private key usage period', lines: privateKeyUsagePeriodLines },
  signed_certificate_timestamps: { label: 'Signed certificate timestamps (X.509 entries)', lines: sctLines },
  subject_alternative_name: { label: 'Subject alternative name', lines: generalNameLines },
  subject_information_access: { label: 'Subject information access', lines: accessDescriptionLines },
  subject_key_identifier: { label: 'Subject key identifier', lines: (keyId) => [base64Hex(keyId)] },
  tls_feature: { label: 'TLS feature', lines: tlsFeatureLines },
  unknown: { label: 'Unknown extension', lines: unknownLines },
};

/** The label of every extension type. */
export const EXTENSION_LABELS: Readonly<Record<ExtensionType, string>> = Object.fromEntries(
  Object.entries(RENDERERS).map(([type, r]) => [type, r.label]),
) as Record<ExtensionType, string>;

/**
 * An `unknown` extension whose OID the engine knows could not be decoded (malformed, or a value the API
 * cannot represent): it keeps its type's label, marked so.
 */
function unknownLabel(value: UnknownExtensionValue): string {
  const known = codecByOid(value.oid)?.type;
  return known ? `${RENDERERS[known].label} (not decoded)` : RENDERERS.unknown.label;
}

export function readableExtension(ext: Extension): ReadableExtension {
  const { type, critical } = ext;
  if (type === 'unknown') {
    const value = ext.value as UnknownExtensionValue;
    return { type, label: unknownLabel(value), oid: value.oid, critical, lines: unknownLines(value) };
  }
  const renderer = RENDERERS[type] as Renderer<unknown>;
  return { type, label: renderer.label, oid: EXTENSION_OIDS[type], critical, lines: renderer.lines(ext.value) };
}

/** Every extension, in the given (certificate) order. */
export function readableExtensions(exts: readonly Extension[]): ReadableExtension[] {
  return exts.map(readableExtension);
}
