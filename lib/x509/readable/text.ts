/**
 * Text pieces the extension renderers share: GeneralNames (RFC 5280 §4.2.1.6), Names (§4.1.2.4, as RFC
 * 4514 strings), identifiers and octets as colon hex, times. Plain text; the caller escapes it.
 */
import { show } from '../error-text';
import { colonHex } from '../fingerprints';
import { formatRfc4514 } from '../rfc4514';
import type { GeneralName, Name } from '../types';

/** What a list that holds nothing renders as (the parser never produces one, API input might). */
export const NONE = '(none)';

/** `lines`, or the single line `(none)` when there are none. */
export function orNone(lines: string[]): string[] {
  return lines.length ? lines : [NONE];
}

/** `C=AT,O=Example,CN=example.com` (certificate order), or `(empty)` for the empty Name. */
export function nameText(name: Name): string {
  return name.length ? formatRfc4514(name) : '(empty)';
}

/** Base64 bytes of the API (key identifiers, raw values) as upper-case colon hex, `(empty)` for none. */
export function base64Hex(base64: string): string {
  return colonHex(Buffer.from(base64, 'base64')) || '(empty)';
}

/** A naive UTC datetime of the API (`2019-08-09T10:15:21.724`) as `… UTC`. */
export function utcText(naive: string): string {
  return `${naive} UTC`;
}

/** `1.2.3 (name)` when `names` knows the OID, else the dotted OID alone. */
export function oidWithName(oid: string, names: Readonly<Record<string, string>>): string {
  return Object.hasOwn(names, oid) ? `${oid} (${names[oid]})` : oid;
}

/** An otherName value: string, boolean, null or integer (a bigint where it does not fit a double). */
function scalarText(v: unknown): string {
  return v !== null && typeof v === 'object' ? show(v) : String(v);
}

/** `DNS: example.com`, `IP: 192.0.2.0/24`, `dirName: CN=…`, `otherName: <oid> (<type>) <value>`. */
export function generalNameText(gn: GeneralName): string {
  switch (gn.type) {
    case 'DNS':
    case 'email':
    case 'URI':
    case 'IP':
    case 'RID':
      return `${gn.type}: ${gn.value}`;
    case 'dirName':
      return `dirName: ${nameText(gn.value)}`;
    case 'otherName':
      return `otherName: ${gn.value.oid} (${gn.value.type}) ${scalarText(gn.value.value)}`;
    default: {
      const never: never = gn;
      return show(never);
    }
  }
}

/** A location (access description, distribution point): a URI alone, any other kind with its type. */
export function locationText(gn: GeneralName): string {
  return gn.type === 'URI' ? gn.value : generalNameText(gn);
}
