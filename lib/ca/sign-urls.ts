/**
 * The URLs `init_ca` derives from a default hostname (reference/signing.md §4).
 *
 * Quirk kept on purpose: the CA-Issuers URL handed to end-entity certificates of an intermediate CA
 * points at the *parent's* certificate (P = parent serial), as upstream does — clients and existing
 * deployments depend on those exact URLs.
 */
import type { Extension } from '../x509/types';

export const DEFAULT_URL_PATH = 'django_ca/';
const OCSP = '1.3.6.1.5.5.7.48.1';
const CA_ISSUERS = '1.3.6.1.5.5.7.48.2';

export interface UrlBase {
  /** `host` or `host:port`. */
  hostname: string;
  /** CA_URL_PATH, default `django_ca/` (may be ''). */
  urlPath?: string;
}

function base({ hostname, urlPath = DEFAULT_URL_PATH }: UrlBase): string {
  const path = urlPath && !urlPath.endsWith('/') ? `${urlPath}/` : urlPath;
  return `http://${hostname}/${path.replace(/^\/+/, '')}`;
}

const uri = (value: string) => ({ type: 'URI' as const, value });

function aia(ocspUrl: string, issuerUrl: string): Extension {
  return {
    type: 'authority_information_access',
    critical: false,
    value: [
      { access_method: OCSP, access_location: uri(ocspUrl) },
      { access_method: CA_ISSUERS, access_location: uri(issuerUrl) },
    ],
  };
}

function crlDp(url: string): Extension {
  return {
    type: 'crl_distribution_points',
    critical: false,
    value: [{ full_name: [uri(url)], relative_name: null, crl_issuer: null, reasons: null }],
  };
}

/**
 * sign_* values for a CA with serial `serial` (hex, no colons); `parentSerial` for intermediates.
 */
export function signUrlsFor(
  at: UrlBase,
  serial: string,
  parentSerial: string | null,
): { signAuthorityInformationAccess: Extension; signCrlDistributionPoints: Extension } {
  const b = base(at);
  return {
    signAuthorityInformationAccess: aia(`${b}ocsp/${serial}/cert/`, `${b}issuer/${parentSerial ?? serial}.der`),
    signCrlDistributionPoints: crlDp(`${b}crl/${serial}/`),
  };
}

/** AIA and CRL DP of an intermediate CA's own certificate (P = parent serial). */
export function intermediateCaUrls(at: UrlBase, parentSerial: string): Extension[] {
  const b = base(at);
  return [aia(`${b}ocsp/${parentSerial}/ca/`, `${b}issuer/${parentSerial}.der`), crlDp(`${b}crl/ca/${parentSerial}/`)];
}
