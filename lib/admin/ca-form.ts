/**
 * The CA form's URL lists and the REST update body they stand for (docs/guides/admin-interface.md):
 * CRL distribution points and authority information access that certificates of the CA get, one URL
 * per line. A stored value the lists cannot show without losing something (reasons, a CRL issuer, a
 * relative name, a non-URI location) is shown read-only and left as it is.
 */
import type { Extension, GeneralName } from '../x509/types';

interface DistributionPoint {
  full_name?: GeneralName[] | null;
  relative_name?: unknown;
  reasons?: unknown;
  crl_issuer?: unknown;
}
interface AccessDescription {
  access_method: string;
  access_location: GeneralName;
}

/** Access methods by alias and by OID (RFC 5280 §4.2.2.1: id-ad-ocsp, id-ad-caIssuers), as stored values carry either. */
const METHODS: Record<string, 'ocsp' | 'issuers' | undefined> = {
  ocsp: 'ocsp',
  '1.3.6.1.5.5.7.48.1': 'ocsp',
  ca_issuers: 'issuers',
  '1.3.6.1.5.5.7.48.2': 'issuers',
};

const uri = (n: GeneralName): string | null => (n.type === 'URI' ? n.value : null);

/** The CRL URLs, or null when the stored value is more than full-name URIs. */
export function crlUrls(ext: Extension | null): string[] | null {
  if (!ext) return [];
  const points = ext.value as DistributionPoint[];
  const urls: string[] = [];
  for (const p of points) {
    if (p.relative_name || p.reasons || p.crl_issuer || !p.full_name) return null;
    for (const n of p.full_name) {
      const u = uri(n);
      if (u === null) return null;
      urls.push(u);
    }
  }
  return urls;
}

/** OCSP and CA-issuer URLs, or null when the stored value has another method or location type. */
export function accessUrls(ext: Extension | null): { ocsp: string[]; issuers: string[] } | null {
  const out = { ocsp: [] as string[], issuers: [] as string[] };
  for (const d of (ext?.value ?? []) as AccessDescription[]) {
    const u = uri(d.access_location);
    const method = METHODS[d.access_method];
    if (u === null || !method) return null;
    out[method].push(u);
  }
  return out;
}

export const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

const uriName = (value: string): GeneralName => ({ type: 'URI', value });

/** `sign_crl_distribution_points` of the REST update body: one distribution point with every URL, or null. */
export function crlBody(urls: string[]): unknown {
  return urls.length ? { value: [{ full_name: urls.map(uriName) }] } : null;
}

/** `sign_authority_information_access` of the REST update body, or null. */
export function accessBody(ocsp: string[], issuers: string[]): unknown {
  const value = [
    ...ocsp.map((u) => ({ access_method: 'ocsp', access_location: uriName(u) })),
    ...issuers.map((u) => ({ access_method: 'ca_issuers', access_location: uriName(u) })),
  ];
  return value.length ? { value } : null;
}
