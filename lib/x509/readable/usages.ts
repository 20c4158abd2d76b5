/**
 * What a key may be used for: key usage (RFC 5280 §4.2.1.3), extended key usage (§4.2.1.12), basic
 * constraints (§4.2.1.9) and the TLS feature extension, as lines of text.
 */
import type { BasicConstraintsValue } from '../extensions/basic-constraints';
import type { KeyUsageName } from '../extensions/key-usage';
import type { TlsFeatureName } from '../extensions/tls-feature';
import { EXTENDED_KEY_USAGE_ALIASES } from '../oids';
import { orNone } from './text';

/** RFC 5280 §4.2.1.3's usages, in the order of their bits (the order lines are written in). */
const KEY_USAGE_TEXT: Readonly<Record<KeyUsageName, string>> = {
  digital_signature: 'Digital signature',
  content_commitment: 'Content commitment (non-repudiation)',
  key_encipherment: 'Key encipherment',
  data_encipherment: 'Data encipherment',
  key_agreement: 'Key agreement',
  key_cert_sign: 'Certificate signing',
  crl_sign: 'CRL signing',
  encipher_only: 'Encipher only',
  decipher_only: 'Decipher only',
};

const KEY_USAGE_ORDER = Object.keys(KEY_USAGE_TEXT);

/** One line per usage, in bit order (the API lists them alphabetically). */
export function keyUsageLines(usages: readonly KeyUsageName[]): string[] {
  const rank = (u: string) => (KEY_USAGE_ORDER.includes(u) ? KEY_USAGE_ORDER.indexOf(u) : KEY_USAGE_ORDER.length);
  return orNone([...usages].sort((a, b) => rank(a) - rank(b)).map((u) => KEY_USAGE_TEXT[u] ?? u));
}

/**
 * What each extended key usage of `EXTENDED_KEY_USAGE_ALIASES` is for, by its alias (RFC 5280
 * §4.2.1.12 defines serverAuth to timeStamping and OCSPSigning; the others come from their own
 * specifications).
 */
export const EXTENDED_KEY_USAGE_TEXT: Readonly<Record<string, string>> = {
  anyExtendedKeyUsage: 'Any extended key usage',
  bundleSecurity: 'Bundle security',
  certificateTransparency: 'Certificate Transparency precertificate signing',
  clientAuth: 'TLS web client authentication',
  codeSigning: 'Code signing',
  emailProtection: 'E-mail protection',
  ipsecEndSystem: 'IPsec end system',
  ipsecIKE: 'IPsec Internet Key Exchange',
  ipsecTunnel: 'IPsec tunnel',
  ipsecUser: 'IPsec user',
  msKDC: 'Kerberos key distribution center',
  mdlDS: 'Mobile driving licence document signer',
  mdlJWS: 'Mobile driving licence JWS signing',
  OCSPSigning: 'OCSP signing',
  serverAuth: 'TLS web server authentication',
  smartcardLogon: 'Smart card logon',
  timeStamping: 'Time stamping',
};

/** Dotted OID → its alias (the first, where an OID has several). */
const EKU_ALIAS_BY_OID: ReadonlyMap<string, string> = new Map(
  Object.entries(EXTENDED_KEY_USAGE_ALIASES)
    .reverse()
    .map(([alias, oid]) => [oid, alias]),
);

/** `TLS web server authentication (serverAuth)`; an OID without an alias stays dotted. */
export function extendedKeyUsageText(oid: string): string {
  const alias = EKU_ALIAS_BY_OID.get(oid);
  if (alias === undefined) return oid;
  return Object.hasOwn(EXTENDED_KEY_USAGE_TEXT, alias) ? `${EXTENDED_KEY_USAGE_TEXT[alias]} (${alias})` : `${alias} (${oid})`;
}

export function extendedKeyUsageLines(oids: readonly string[]): string[] {
  return orNone(oids.map(extendedKeyUsageText));
}

/** `CA: yes, path length 0`, `CA: yes, path length unlimited`, `CA: no` (RFC 5280 §4.2.1.9). */
export function basicConstraintsLines(value: BasicConstraintsValue): string[] {
  if (!value.ca) return ['CA: no'];
  return [`CA: yes, path length ${value.path_length ?? 'unlimited'}`];
}

/** The TLS extensions a TLS feature extension requires, by the name of the TLS extension. */
const TLS_FEATURE_TEXT: Readonly<Record<TlsFeatureName, string>> = {
  status_request: 'OCSP must-staple (status_request)',
  status_request_v2: 'Multiple certificate status request (status_request_v2)',
};

export function tlsFeatureLines(features: readonly TlsFeatureName[]): string[] {
  return orNone(features.map((f) => TLS_FEATURE_TEXT[f] ?? f));
}
