/**
 * Extensions made of names and where to find things: alternative names (RFC 5280 §4.2.1.6, §4.2.1.7),
 * name constraints (§4.2.1.10), distribution points (§4.2.1.13, §4.2.1.15), information access
 * (§4.2.2.1, §4.2.2.2) and key identifiers (§4.2.1.1, §4.2.1.2), as lines of text.
 */
import type { AccessDescription } from '../extensions/access-descriptions';
import type { AuthorityKeyIdentifier } from '../extensions/authority-key-identifier';
import type { DistributionPoint, DistributionPointReason } from '../extensions/distribution-points';
import type { NameConstraints } from '../extensions/name-constraints';
import { ACCESS_METHOD_ALIASES } from '../oids';
import { serialToColons } from '../serial-format';
import type { GeneralName } from '../types';
import { base64Hex, generalNameText, locationText, nameText, orNone } from './text';

export function generalNameLines(names: readonly GeneralName[]): string[] {
  return orNone(names.map(generalNameText));
}

/** `Permitted: DNS: .example.com`, `Excluded: IP: 10.0.0.0/8` (RFC 5280 §4.2.1.10). */
export function nameConstraintsLines(value: NameConstraints): string[] {
  return orNone([
    ...(value.permitted_subtrees ?? []).map((gn) => `Permitted: ${generalNameText(gn)}`),
    ...(value.excluded_subtrees ?? []).map((gn) => `Excluded: ${generalNameText(gn)}`),
  ]);
}

/** The ReasonFlags of RFC 5280 §4.2.1.13. */
const REASON_TEXT: Readonly<Record<DistributionPointReason, string>> = {
  key_compromise: 'key compromise',
  ca_compromise: 'CA compromise',
  affiliation_changed: 'affiliation changed',
  superseded: 'superseded',
  cessation_of_operation: 'cessation of operation',
  certificate_hold: 'certificate hold',
  privilege_withdrawn: 'privilege withdrawn',
  aa_compromise: 'AA compromise',
};

function distributionPointLines(dp: DistributionPoint): string[] {
  const lines = (dp.full_name ?? []).map(locationText);
  if (dp.relative_name !== null) lines.push(`Relative name: ${nameText(dp.relative_name)}`);
  if (dp.reasons !== null) lines.push(`Reasons: ${dp.reasons.map((r) => REASON_TEXT[r] ?? r).join(', ')}`);
  for (const gn of dp.crl_issuer ?? []) lines.push(`CRL issuer: ${generalNameText(gn)}`);
  return lines;
}

/**
 * CRL distribution points and freshest CRL: a line per full name (a URI alone), then the point's
 * relative name, reasons and CRL issuers, point after point.
 */
export function distributionPointsLines(points: readonly DistributionPoint[]): string[] {
  return orNone(points.flatMap(distributionPointLines));
}

/** Access methods by dotted OID: RFC 5280 §4.2.2.1 (OCSP, CA issuers) and §4.2.2.2 (CA repository, time stamping). */
const ACCESS_METHOD_TEXT: Readonly<Record<string, string>> = {
  [ACCESS_METHOD_ALIASES.ocsp]: 'OCSP',
  [ACCESS_METHOD_ALIASES.ca_issuers]: 'CA issuers',
  [ACCESS_METHOD_ALIASES.ca_repository]: 'CA repository',
  '1.3.6.1.5.5.7.48.3': 'Time stamping',
};

/** `OCSP: http://ocsp.example.com`, `CA issuers: http://…`; an unknown method by its dotted OID. */
export function accessDescriptionLines(list: readonly AccessDescription[]): string[] {
  return orNone(
    list.map((d) => {
      const method = Object.hasOwn(ACCESS_METHOD_TEXT, d.access_method) ? ACCESS_METHOD_TEXT[d.access_method] : d.access_method;
      return `${method}: ${locationText(d.access_location)}`;
    }),
  );
}

/** `Key ID: 12:AB:…`, `Issuer: dirName: …`, `Serial: 01:02` (RFC 5280 §4.2.1.1). */
export function authorityKeyIdentifierLines(value: AuthorityKeyIdentifier): string[] {
  const lines: string[] = [];
  if (value.key_identifier !== null) lines.push(`Key ID: ${base64Hex(value.key_identifier)}`);
  for (const gn of value.authority_cert_issuer ?? []) lines.push(`Issuer: ${generalNameText(gn)}`);
  if (value.authority_cert_serial_number !== null) {
    lines.push(`Serial: ${serialToColons(BigInt(value.authority_cert_serial_number))}`);
  }
  return orNone(lines);
}
