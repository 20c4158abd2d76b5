/**
 * Which extensions a certificate gets (docs/COMPATIBILITY.md §3.2, §3.3, docs/reference/differences.md D1).
 *
 * Precedence: request > profile > CA `sign_*`. A profile value of `null` removes that extension
 * whatever its source; the profile's `add_*` flags decide which of the CA's values are added. The
 * mandatory AKI, Basic Constraints and SKI come first and cannot be supplied by anyone else.
 *
 * Precedence is per extension type, never merged: a request AIA with only an OCSP URL replaces the
 * CA's AIA completely, as in the original API.
 */
import { subjectKeyIdentifier } from '../x509/key-identifier';
import type { Extension, ExtensionType } from '../x509/types';
import type { CaSignExtensions } from '../ports';
import type { Profile } from './profiles';

const OCSP = '1.3.6.1.5.5.7.48.1';
const CA_ISSUERS = '1.3.6.1.5.5.7.48.2';

interface AccessDescription {
  access_method: string;
  access_location: unknown;
}

/** AKI (CA key id only), BC (ca=false, critical), SKI of the subject key — docs/COMPATIBILITY.md §3.2 */
export function mandatoryExtensions(caKeyIdentifier: string, subjectPublicKeyDer: Buffer): Extension[] {
  return [
    {
      type: 'authority_key_identifier',
      critical: false,
      value: { key_identifier: caKeyIdentifier, authority_cert_issuer: null, authority_cert_serial_number: null },
    },
    { type: 'basic_constraints', critical: true, value: { ca: false, path_length: null } },
    { type: 'subject_key_identifier', critical: false, value: subjectKeyIdentifier(subjectPublicKeyDer).toString('base64') },
  ];
}

/** The CA's AIA reduced to the access methods the profile wants (`add_ocsp_url`, `add_issuer_url`). */
function filteredAia(aia: Extension, profile: Profile | undefined): Extension | null {
  if (!profile) return aia;
  const keep = (aia.value as AccessDescription[]).filter((d) =>
    d.access_method === OCSP ? profile.addOcspUrl : d.access_method === CA_ISSUERS ? profile.addIssuerUrl : true,
  );
  return keep.length ? { ...aia, value: keep } : null;
}

/**
 * Where a CA's revocation and issuer URLs enter a new certificate: the CA's `sign_authority_
 * information_access` (OCSP responder and CA-Issuers URLs, each kept only if the profile's
 * `add_ocsp_url` / `add_issuer_url` says so) and `sign_crl_distribution_points` (if `add_crl_url`).
 * Values a request or profile gives for these types win over them (see `composeExtensions`).
 */
export function caUrlExtensions(ca: CaSignExtensions, profile: Profile | undefined): Extension[] {
  const aia = ca.signAuthorityInformationAccess && filteredAia(ca.signAuthorityInformationAccess, profile);
  const crl = (profile?.addCrlUrl ?? true) ? ca.signCrlDistributionPoints : null;
  return [aia, crl].filter((e): e is Extension => e !== null);
}

/**
 * The configurable extensions of a new certificate, in order: request (request order), profile
 * (profile order, types the request did not give), CA sign_* (AIA, CP, CRL DP, IAN).
 */
export function composeExtensions(requested: readonly Extension[], profile: Profile | undefined, ca: CaSignExtensions): Extension[] {
  const chosen = new Map<ExtensionType, Extension>();
  for (const ext of requested) chosen.set(ext.type, ext);
  for (const [type, ext] of Object.entries(profile?.extensions ?? {})) {
    if (ext && !chosen.has(type as ExtensionType)) chosen.set(type as ExtensionType, ext);
  }
  const [urls, policies, issuerName] = [
    caUrlExtensions(ca, profile),
    // The original's API path adds the CA's policies; profiles have no flag for them.
    ca.signCertificatePolicies,
    (profile?.addIssuerAlternativeName ?? true) ? ca.signIssuerAlternativeName : null,
  ];
  const aia = urls.find((e) => e.type === 'authority_information_access');
  const crl = urls.find((e) => e.type === 'crl_distribution_points');
  for (const ext of [aia, policies, crl, issuerName]) {
    if (ext && !chosen.has(ext.type)) chosen.set(ext.type, ext);
  }
  for (const [type, ext] of Object.entries(profile?.extensions ?? {})) {
    if (ext === null) chosen.delete(type as ExtensionType);
  }
  return [...chosen.values()];
}
