/**
 * The demo CAs write their OCSP, CRL and CA-issuer URLs into every certificate they sign. The example
 * server made them for the address it listened on at its first start (init_ca's default hostname,
 * docs/COMPATIBILITY.md §3.7), and they are kept in the database: a later start on another PORT
 * serves the same paths at another address, and a relying party following the URLs (steps 6-7 of
 * the walk-through) reaches nothing, or another server. The start says so, and how to move them.
 */
import { parseDatabaseUrl, type CaRecord } from '../../lib';

/** The URIs of a CA's sign_* AIA and CRL distribution point extensions. */
export function signUrls(ca: CaRecord): string[] {
  const entries = (extension: { value: unknown } | null) =>
    Array.isArray(extension?.value) ? (extension.value as Record<string, unknown>[]) : [];
  const uris = (names: unknown[]): string[] =>
    names.flatMap((n) => ((n as { type?: string })?.type === 'URI' ? [String((n as { value: unknown }).value)] : []));
  return [
    ...uris(entries(ca.signAuthorityInformationAccess).map((d) => d.access_location)),
    ...uris(entries(ca.signCrlDistributionPoints).flatMap((d) => (Array.isArray(d.full_name) ? (d.full_name as unknown[]) : []))),
  ];
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/**
 * Warning lines when a demo CA's URLs name another host than `listening` (`host:port`); none when
 * they all match. `databaseUrl` is the server's, for the ca-admin commands (never its password).
 * `tls`: this server speaks HTTPS only. The URLs are http:// — OCSP and CRL URLs are plain HTTP by
 * design (RFC 5280 §4.2.1.13, RFC 6960 Appendix A: what they serve is signed) — so moving them to
 * this port would name an address that never answers them: the advice is to serve them over HTTP.
 */
export function signUrlWarning(cas: CaRecord[], listening: string, databaseUrl: string, tls = false): string[] {
  const elsewhere = cas.filter((ca) => signUrls(ca).some((url) => hostOf(url) !== listening));
  if (!elsewhere.length) return [];
  const hosts = [...new Set(elsewhere.flatMap((ca) => signUrls(ca).map(hostOf)).filter((h) => h !== listening))];
  if (tls) {
    return [
      `Warning: the demo CAs write http:// OCSP, CRL and CA-issuer URLs for ${hosts.join(', ')} into the certificates they sign,`,
      `  but this server speaks HTTPS only, on ${listening}: relying parties will not reach them there (walk-through steps 6-7).`,
      `  Serve them over plain HTTP at ${hosts.join(', ')} (npm start without TLS_CERT_FILE, on that PORT) when they are needed;`,
      `  OCSP and CRL URLs are http:// by design, so do not point them at this HTTPS port.`,
    ];
  }
  const target = parseDatabaseUrl(databaseUrl);
  const database =
    target.kind === 'pglite-directory'
      ? `DATABASE_URL='${target.directory}' `
      : target.kind === 'postgres'
        ? 'DATABASE_URL=<this server’s> '
        : '';
  return [
    `Warning: the demo CAs write OCSP, CRL and CA-issuer URLs for ${hosts.join(', ')} into the certificates they sign,`,
    `  but this server listens on ${listening}: relying parties will not reach them (walk-through steps 6-7).`,
    `  Start with the earlier PORT, or stop this server and point the CAs here (certificates signed before keep their URLs):`,
    ...elsewhere.map((ca) => `    ${database}npx ca-admin edit_ca '${ca.name}' --default-hostname ${listening}`),
  ];
}
