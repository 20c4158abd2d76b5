/**
 * The remaining extensions as lines of text: admissions (Common PKI), signed certificate timestamps
 * (RFC 6962 §3.3), the private key usage period (RFC 3280 §4.2.1.4, gone from RFC 5280), the Microsoft
 * certificate template, and extensions the engine does not read (RFC 5280 §4.2: OID and raw value).
 */
import type { Admission, AdmissionsValue, NamingAuthority, ProfessionInfo } from '../extensions/admissions';
import type { UnknownExtensionValue } from '../extensions/index';
import type { MsCertificateTemplateValue } from '../extensions/ms-certificate-template';
import type { PrivateKeyUsagePeriodValue } from '../extensions/private-key-usage-period';
import type { SignedCertificateTimestamp } from '../extensions/signed-certificate-timestamps';
import { base64Hex, generalNameText, orNone, utcText } from './text';

/** `Log ID: 12:AB:…, timestamp: 2019-08-09T10:15:21.724 UTC`, one line per SCT. */
export function sctLines(scts: readonly SignedCertificateTimestamp[]): string[] {
  return orNone(scts.map((s) => `Log ID: ${base64Hex(s.log_id)}, timestamp: ${utcText(s.timestamp)}`));
}

export function privateKeyUsagePeriodLines(value: PrivateKeyUsagePeriodValue): string[] {
  const lines: string[] = [];
  if (value.not_before !== null) lines.push(`Not before: ${utcText(value.not_before)}`);
  if (value.not_after !== null) lines.push(`Not after: ${utcText(value.not_after)}`);
  return orNone(lines);
}

export function msCertificateTemplateLines(value: MsCertificateTemplateValue): string[] {
  const lines = [`Template: ${value.template_id}`];
  if (value.major_version !== null) lines.push(`Major version: ${value.major_version}`);
  if (value.minor_version !== null) lines.push(`Minor version: ${value.minor_version}`);
  return lines;
}

/** `OID: 1.2.3`, `Value: 04:03:…` of an extension the engine does not read. */
export function unknownLines(value: UnknownExtensionValue): string[] {
  return [`OID: ${value.oid}`, `Value: ${base64Hex(value.value)}`];
}

// ---------------------------------------------------------------------------------------------------
// Admissions

/** `1.2.3, https://…, text`: whichever of the three parts are present. */
function namingAuthorityText(na: NamingAuthority): string {
  return [na.id, na.url, na.text].filter((part) => part !== null).join(', ') || '(empty)';
}

/** One line per profession: its items, then OIDs, registration number, naming authority and added info. */
function professionLine(p: ProfessionInfo): string {
  const parts = [`Profession: ${p.profession_items.join(', ') || '(none)'}`];
  if (p.profession_oids !== null) parts.push(`OIDs ${p.profession_oids.join(', ') || '(none)'}`);
  if (p.registration_number !== null) parts.push(`registration number ${p.registration_number}`);
  if (p.naming_authority !== null) parts.push(`naming authority ${namingAuthorityText(p.naming_authority)}`);
  if (p.add_profession_info !== null) parts.push(`additional information ${base64Hex(p.add_profession_info)}`);
  return parts.join('; ');
}

function admissionLines(a: Admission): string[] {
  const lines: string[] = [];
  if (a.admission_authority !== null) lines.push(`Admission authority: ${generalNameText(a.admission_authority)}`);
  if (a.naming_authority !== null) lines.push(`Naming authority: ${namingAuthorityText(a.naming_authority)}`);
  return [...lines, ...a.profession_infos.map(professionLine)];
}

/** `Authority: …`, then each admission's authorities and professions, admission after admission. */
export function admissionsLines(value: AdmissionsValue): string[] {
  const lines = value.authority !== null ? [`Authority: ${generalNameText(value.authority)}`] : [];
  return orNone([...lines, ...value.admissions.flatMap(admissionLines)]);
}
