/**
 * The URLs `init_ca` derives from a default hostname: where the certificates a CA issues send relying
 * parties for its OCSP responder, its certificate (CA Issuers) and its CRL (RFC 5280 §4.2.2.1,
 * §4.2.1.13; docs/COMPATIBILITY.md §3.7). The public endpoints of the router serve exactly these paths.
 *
 * Unlike the original (docs/reference/differences.md D17), the CA-Issuers URL in certificates issued by an
 * intermediate CA points at that intermediate's own certificate, which is what AIA chasing needs to
 * build the chain; the original pointed at the parent's.
 */
import type { Extension } from '../x509/types';

export const DEFAULT_URL_PATH = 'django_ca/';
/** The access methods of the AIA entries (RFC 5280 §4.2.2.1): OCSP, CA Issuers. */
export const OCSP = '1.3.6.1.5.5.7.48.1';
export const CA_ISSUERS = '1.3.6.1.5.5.7.48.2';

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

/** sign_* values for a CA with serial `serial` (hex, no colons). */
export function signUrlsFor(
  at: UrlBase,
  serial: string,
): { signAuthorityInformationAccess: Extension; signCrlDistributionPoints: Extension } {
  const b = base(at);
  return {
    signAuthorityInformationAccess: aia(`${b}ocsp/${serial}/cert/`, `${b}issuer/${serial}.der`),
    signCrlDistributionPoints: crlDp(`${b}crl/${serial}/`),
  };
}

/** AIA and CRL DP of an intermediate CA's own certificate (P = parent serial). */
export function intermediateCaUrls(at: UrlBase, parentSerial: string): Extension[] {
  const b = base(at);
  return [aia(`${b}ocsp/${parentSerial}/ca/`, `${b}issuer/${parentSerial}.der`), crlDp(`${b}crl/ca/${parentSerial}/`)];
}
