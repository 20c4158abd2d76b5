/**
 * Command-line options that describe extensions → API JSON extension inputs (validated afterwards by
 * the engine, exactly like API input).
 */
import { Option } from 'commander';
import type { CaSignExtensions } from '../ports';
import { parseExtension } from '../x509/extensions';
import type { ExtensionType } from '../x509/types';

const NAME_PREFIXES: Readonly<Record<string, string>> = {
  dns: 'DNS',
  email: 'email',
  uri: 'URI',
  ip: 'IP',
  rid: 'RID',
  dirname: 'dirName',
};

/**
 * `TYPE:value` (DNS, email, URI, IP, RID) or a bare value whose type is guessed the way the original
 * does: URI if it has a scheme, e-mail if it has an @, IP if it parses as one, else DNS.
 */
export function parseGeneralNameArg(text: string): { type: string; value: string } {
  const m = /^([A-Za-z]+):(.*)$/s.exec(text);
  if (m && NAME_PREFIXES[m[1].toLowerCase()] && !m[2].startsWith('//')) {
    return { type: NAME_PREFIXES[m[1].toLowerCase()], value: m[2] };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { type: 'URI', value: text };
  if (text.includes('@')) return { type: 'email', value: text };
  if (/^[0-9.]+(\/\d+)?$/.test(text) || (text.includes(':') && /^[0-9a-f:.]+(\/\d+)?$/i.test(text))) {
    return { type: 'IP', value: text };
  }
  return { type: 'DNS', value: text };
}

/** Values of a variadic option, also split at commas (`--key-usage a,b c`). */
function flat(values: string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

export interface ExtensionFlags {
  subjectAlternativeName?: string[];
  subjectAlternativeNameCritical?: boolean;
  keyUsage?: string[];
  keyUsageNonCritical?: boolean;
  extendedKeyUsage?: string[];
  extendedKeyUsageCritical?: boolean;
  tlsFeature?: string[];
  tlsFeatureCritical?: boolean;
  ocspNoCheck?: boolean;
  ocspNoCheckCritical?: boolean;
  crlFullName?: string[];
  crlDistributionPointsCritical?: boolean;
  ocspResponder?: string[];
  caIssuer?: string[];
  issuerAlternativeName?: string[];
  issuerAlternativeNameCritical?: boolean;
}

export function extensionFlagOptions(): Option[] {
  return [
    new Option('--subject-alternative-name <name...>', 'subject alternative names (DNS:..., IP:..., email:..., URI:...)'),
    new Option('--subject-alternative-name-critical', 'mark the SAN extension critical'),
    new Option('--key-usage <usage...>', 'key usages (e.g. digitalSignature keyEncipherment)'),
    new Option('--key-usage-non-critical', 'mark key usage non-critical'),
    new Option('--extended-key-usage <usage...>', 'extended key usages (e.g. serverAuth clientAuth)'),
    new Option('--extended-key-usage-critical', 'mark extended key usage critical'),
    new Option('--tls-feature <feature...>', 'TLS features (OCSPMustStaple, MultipleCertStatusRequest)'),
    new Option('--tls-feature-critical', 'mark TLS feature critical'),
    new Option('--ocsp-no-check', 'add the OCSP no-check extension'),
    new Option('--ocsp-no-check-critical', 'mark OCSP no-check critical'),
    new Option('--crl-full-name <uri...>', 'CRL distribution point URLs'),
    new Option('--crl-distribution-points-critical', 'mark CRL distribution points critical'),
    new Option('--ocsp-responder <uri...>', 'OCSP responder URLs (authority information access)'),
    new Option('--ca-issuer <uri...>', 'CA issuer URLs (authority information access)'),
    new Option('--issuer-alternative-name <name...>', 'issuer alternative names'),
    new Option('--issuer-alternative-name-critical', 'mark issuer alternative name critical'),
  ];
}

const OCSP = 'ocsp';
const CA_ISSUERS = 'ca_issuers';

/** Access descriptions for an AIA from OCSP and CA-issuer URLs (null when neither is given). */
export function aiaInput(ocsp: string[] | undefined, issuers: string[] | undefined): Record<string, unknown> | null {
  const value = [
    ...flat(ocsp).map((u) => ({ access_method: OCSP, access_location: parseGeneralNameArg(u) })),
    ...flat(issuers).map((u) => ({ access_method: CA_ISSUERS, access_location: parseGeneralNameArg(u) })),
  ];
  return value.length ? { type: 'authority_information_access', critical: false, value } : null;
}

export function crlInput(fullNames: string[] | undefined, critical = false): Record<string, unknown> | null {
  const names = flat(fullNames).map(parseGeneralNameArg);
  return names.length ? { type: 'crl_distribution_points', critical, value: [{ full_name: names }] } : null;
}

export function ianInput(names: string[] | undefined, critical = false): Record<string, unknown> | null {
  const list = flat(names).map(parseGeneralNameArg);
  return list.length ? { type: 'issuer_alternative_name', critical, value: list } : null;
}

/** Extension inputs (API JSON) for the flags given; validated later by the engine. */
export function extensionInputs(f: ExtensionFlags): Record<string, unknown>[] {
  const out: (Record<string, unknown> | null)[] = [];
  const sans = flat(f.subjectAlternativeName);
  if (sans.length) {
    out.push({ type: 'subject_alternative_name', critical: !!f.subjectAlternativeNameCritical, value: sans.map(parseGeneralNameArg) });
  }
  const ku = flat(f.keyUsage);
  if (ku.length) out.push({ type: 'key_usage', critical: !f.keyUsageNonCritical, value: ku });
  const eku = flat(f.extendedKeyUsage);
  if (eku.length) out.push({ type: 'extended_key_usage', critical: !!f.extendedKeyUsageCritical, value: eku });
  const tls = flat(f.tlsFeature);
  if (tls.length) out.push({ type: 'tls_feature', critical: !!f.tlsFeatureCritical, value: tls });
  if (f.ocspNoCheck) out.push({ type: 'ocsp_no_check', critical: !!f.ocspNoCheckCritical, value: null });
  out.push(crlInput(f.crlFullName, !!f.crlDistributionPointsCritical));
  out.push(aiaInput(f.ocspResponder, f.caIssuer));
  out.push(ianInput(f.issuerAlternativeName, !!f.issuerAlternativeNameCritical));
  return out.filter((e): e is Record<string, unknown> => e !== null);
}

export interface SignFlags {
  signOcspResponder?: string[];
  signCaIssuer?: string[];
  signCrlFullName?: string[];
  signCrlDistributionPointsCritical?: boolean;
  signIssuerAlternativeName?: string[];
}

export function signFlagOptions(): Option[] {
  return [
    new Option('--sign-ocsp-responder <uri...>', 'OCSP responder URLs added to signed certificates'),
    new Option('--sign-ca-issuer <uri...>', 'CA issuer URLs added to signed certificates'),
    new Option('--sign-crl-full-name <uri...>', 'CRL URLs added to signed certificates'),
    new Option('--sign-crl-distribution-points-critical', 'mark those CRL distribution points critical'),
    new Option('--sign-issuer-alternative-name <name...>', 'issuer alternative names added to signed certificates'),
  ];
}

function parsed(input: Record<string, unknown> | null, type: ExtensionType) {
  return input ? parseExtension(input, { expectedType: type, configurableOnly: true }) : undefined;
}

/** sign_* values for the flags given; each given flag replaces the whole respective extension. */
export function signPatch(f: SignFlags): Partial<CaSignExtensions> {
  const out: Partial<CaSignExtensions> = {};
  const aia = parsed(aiaInput(f.signOcspResponder, f.signCaIssuer), 'authority_information_access');
  if (aia) out.signAuthorityInformationAccess = aia;
  const crl = parsed(crlInput(f.signCrlFullName, !!f.signCrlDistributionPointsCritical), 'crl_distribution_points');
  if (crl) out.signCrlDistributionPoints = crl;
  const ian = parsed(ianInput(f.signIssuerAlternativeName), 'issuer_alternative_name');
  if (ian) out.signIssuerAlternativeName = ian;
  return out;
}
