/**
 * A CA made without a default hostname (init_ca without --default-hostname or CA_DEFAULT_HOSTNAME)
 * writes no OCSP, CA-issuer or CRL URL into the certificates it signs (lib/ca/sign-urls.ts): relying
 * parties then have no way to check a certificate's revocation or fetch its issuer, and `view_ca` only
 * shows "(none)". That is rarely meant, so init_ca says so on stderr, with the commands that add them.
 */
import { CA_ISSUERS, OCSP } from '../ca/sign-urls';
import type { CaRecord } from '../ports';
import type { Extension } from '../x509/types';

function accessMethods(aia: Extension | null): string[] {
  const entries = Array.isArray(aia?.value) ? (aia.value as { access_method?: unknown }[]) : [];
  return entries.map((entry) => String(entry.access_method));
}

/** What the CA's signed certificates will lack, by the option of init_ca/edit_ca that adds it. */
export function missingSignUrls(ca: CaRecord): string[] {
  const methods = accessMethods(ca.signAuthorityInformationAccess);
  const crl = Array.isArray(ca.signCrlDistributionPoints?.value) && ca.signCrlDistributionPoints.value.length > 0;
  return [
    ...(methods.includes(OCSP) ? [] : ['OCSP responder (--sign-ocsp-responder)']),
    ...(methods.includes(CA_ISSUERS) ? [] : ['CA issuer (--sign-ca-issuer)']),
    ...(crl ? [] : ['CRL distribution point (--sign-crl-full-name)']),
  ];
}

/** The warning lines for a CA made without a default hostname; none when it has every URL. */
export function missingSignUrlsWarning(ca: CaRecord): string[] {
  const missing = missingSignUrls(ca);
  if (!missing.length) return [];
  const name = `'${ca.name.replace(/'/g, `'\\''`)}'`;
  return [
    `Warning: no --default-hostname (or CA_DEFAULT_HOSTNAME): the certificates ${ca.name} signs will carry no URL for its`,
    `  ${missing.join(', ')}: relying parties cannot check their revocation.`,
    `  Add them, for the host[:port] that serves this CA's public URLs (docs/guides/revocation.md):`,
    `    ca-admin edit_ca ${name} --default-hostname HOST[:PORT]`,
    `  or name each URL with the options above (edit_ca takes them too). --no-default-hostname: none, without this warning.`,
  ];
}
