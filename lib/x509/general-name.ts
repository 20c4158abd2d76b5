/**
 * GeneralName (RFC 5280 §4.2.1.6, docs/COMPATIBILITY.md §2): DER ⇄ API JSON `{type, value}`.
 *
 *   GeneralName ::= CHOICE {
 *     otherName [0] OtherName, rfc822Name [1] IA5String, dNSName [2] IA5String,
 *     x400Address [3] ORAddress, directoryName [4] Name, ediPartyName [5] EDIPartyName,
 *     uniformResourceIdentifier [6] IA5String, iPAddress [7] OCTET STRING, registeredID [8] OID }
 *   OtherName ::= SEQUENCE { type-id OID, value [0] EXPLICIT ANY }
 *
 * The module is IMPLICIT-tagged, except directoryName, which is EXPLICIT because Name is a CHOICE.
 * x400Address and ediPartyName have no API representation (the original rejects them too).
 * Each kind of value has its own file: ip-address.ts, name-text.ts (DNS, e-mail, URI), other-name.ts.
 */
import * as asn1 from './asn1';
import { Class, Node, Type } from './asn1';
import { X509Error, atLoc, collectIssues, invalid, parseError } from './errors';
import { literalList, show } from './error-text';
import { canonicalIp, decodeIpBytes, encodeIpBytes } from './ip-address';
import { decodeName, encodeName, parseName } from './name';
import { normalizeDnsName, normalizeEmail, normalizeUri } from './name-text';
import { decodeOtherNameValue, encodeOtherNameValue, parseOtherName } from './other-name';
import { canonicalKey, checkNonEmptyUnique, parseEach, requireList } from './json-input';
import { isPlainObject } from './plain-object';
import { isValidOid } from './oids';
import type { GeneralName, GeneralNameType, Name, OtherName } from './types';

export type { GeneralName, OtherName } from './types';
export { canonicalIp } from './ip-address';
export { normalizeDnsName, normalizeEmail, normalizeUri } from './name-text';
export { parseOtherName } from './other-name';

const TAG_OTHER_NAME = 0;
const TAG_EMAIL = 1;
const TAG_DNS = 2;
const TAG_X400 = 3;
const TAG_DIR_NAME = 4;
const TAG_EDI_PARTY = 5;
const TAG_URI = 6;
const TAG_IP = 7;
const TAG_RID = 8;

const GENERAL_NAME_TYPES: readonly GeneralNameType[] = ['email', 'URI', 'IP', 'DNS', 'RID', 'dirName', 'otherName'];

// ===================================================================================================
// DER → JSON

function ia5Text(node: Node, what: string): string {
  const bytes = asn1.contentBytes(node, what);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw parseError(`${what}: not valid text`);
  }
}

/** A node with the universal tag `type` and the content of an IMPLICIT-tagged node. */
function asUniversal(node: Node, type: number): Node {
  return { ...node, tagClass: Class.UNIVERSAL, type };
}

export function decodeGeneralName(node: Node): GeneralName {
  if (node.tagClass !== Class.CONTEXT_SPECIFIC) throw parseError(`GeneralName: unexpected ${asn1.describe(node)}`);
  switch (node.type as number) {
    case TAG_OTHER_NAME: {
      const parts = asn1.children(node, 'otherName');
      if (parts.length !== 2 || asn1.contextTag(parts[1]) !== 0) throw parseError('otherName: malformed');
      const oid = asn1.readOid(parts[0], 'otherName type-id');
      const inner = asn1.children(parts[1], 'otherName value');
      if (inner.length !== 1) throw parseError('otherName value: expected exactly one value');
      return { type: 'otherName', value: { oid, ...decodeOtherNameValue(inner[0]) } };
    }
    case TAG_EMAIL:
      return { type: 'email', value: ia5Text(node, 'rfc822Name') };
    case TAG_DNS:
      return { type: 'DNS', value: ia5Text(node, 'dNSName') };
    case TAG_URI:
      return { type: 'URI', value: ia5Text(node, 'uniformResourceIdentifier') };
    case TAG_IP:
      return { type: 'IP', value: decodeIpBytes(asn1.contentBytes(node, 'iPAddress')) };
    case TAG_RID:
      return { type: 'RID', value: asn1.readOid(asUniversal(node, Type.OID), 'registeredID') };
    case TAG_DIR_NAME: {
      const inner = asn1.children(node, 'directoryName');
      if (inner.length !== 1) throw parseError('directoryName: expected exactly one Name');
      return { type: 'dirName', value: decodeName(inner[0]) };
    }
    case TAG_X400:
      throw new X509Error('unsupported', 'x400Address general names are not supported');
    case TAG_EDI_PARTY:
      throw new X509Error('unsupported', 'ediPartyName general names are not supported');
    default:
      throw parseError(`GeneralName: unknown tag [${node.type}]`);
  }
}

/** The elements of a GeneralNames value, whatever tag the SEQUENCE OF itself carries. */
export function decodeGeneralNameList(elements: Node[]): GeneralName[] {
  return elements.map(decodeGeneralName);
}

/** GeneralNames ::= SEQUENCE OF GeneralName (use `decodeGeneralNameList` for IMPLICIT-tagged ones). */
export function decodeGeneralNames(node: Node): GeneralName[] {
  return decodeGeneralNameList(asn1.readSequence(node, 'GeneralNames'));
}

// ===================================================================================================
// JSON → DER

function ascii(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

export function encodeGeneralName(gn: GeneralName): Node {
  switch (gn.type) {
    case 'email':
      return asn1.context(TAG_EMAIL, false, ascii(gn.value));
    case 'DNS':
      return asn1.context(TAG_DNS, false, ascii(gn.value));
    case 'URI':
      return asn1.context(TAG_URI, false, ascii(gn.value));
    case 'IP':
      return asn1.context(TAG_IP, false, encodeIpBytes(gn.value));
    case 'RID':
      return asn1.implicit(TAG_RID, asn1.oid(gn.value));
    case 'dirName':
      return asn1.explicit(TAG_DIR_NAME, encodeName(gn.value));
    case 'otherName':
      return asn1.context(TAG_OTHER_NAME, true, [asn1.oid(gn.value.oid), asn1.explicit(0, encodeOtherNameValue(gn.value))]);
  }
}

/** GeneralNames as a universal SEQUENCE; wrap with `asn1.implicit(n, ...)` where the syntax says so. */
export function encodeGeneralNames(list: GeneralName[]): Node {
  return asn1.seq(list.map(encodeGeneralName));
}

// ===================================================================================================
// Untrusted input → normalised GeneralName

/** Which member of the reference's value union a JSON value selects (also its loc tag). */
function valueTag(value: unknown): 'str' | 'name' | 'othername' {
  if (Array.isArray(value)) return 'name';
  if (isPlainObject(value)) return 'othername';
  return 'str';
}

function mustBeString(value: unknown, type: GeneralNameType): string {
  if (typeof value !== 'string') throw invalid(`${show(value)}: Must be a str for type ${type}`);
  return value;
}

/**
 * Validate and normalise one GeneralName: IDNA for DNS names, e-mail domains and URI hosts,
 * canonical IP addresses/networks, OID check for RID, Name rules for dirName, every otherName type.
 * loc is relative to the general name; issues inside the value carry the reference's union tag
 * (`['value', 'name', 0, 'oid']`).
 */
export function parseGeneralName(input: unknown): GeneralName {
  if (!isPlainObject(input)) {
    throw invalid('Input should be a valid dictionary or instance of GeneralNameModel', [], 'model_type');
  }
  let type = 'DNS' as GeneralNameType;
  let value: unknown;
  collectIssues([
    () => {
      if (!('type' in input)) throw invalid('Field required', ['type'], 'missing');
      if (!GENERAL_NAME_TYPES.includes(input.type as GeneralNameType)) {
        throw invalid(`Input should be ${literalList(GENERAL_NAME_TYPES)}`, ['type'], 'literal_error');
      }
      type = input.type as GeneralNameType;
    },
    () => {
      if (!('value' in input)) throw invalid('Field required', ['value'], 'missing');
      const raw = input.value;
      const tag = valueTag(raw);
      if (tag === 'name') value = atLoc(['value', 'name'], () => parseName(raw));
      else if (tag === 'othername') value = atLoc(['value', 'othername'], () => parseOtherName(raw));
      else if (typeof raw !== 'string') {
        throw invalid('Input should be a valid string', ['value', 'str'], 'string_type');
      } else value = raw;
    },
  ]);

  switch (type) {
    case 'DNS':
      return { type, value: normalizeDnsName(mustBeString(value, type)) };
    case 'email':
      return { type, value: normalizeEmail(mustBeString(value, type)) };
    case 'URI':
      return { type, value: normalizeUri(mustBeString(value, type)) };
    case 'RID': {
      const text = mustBeString(value, type);
      if (!isValidOid(text)) throw invalid(`${text}: Invalid object identifier`);
      return { type, value: text };
    }
    case 'IP': {
      if (typeof value !== 'string') throw invalid(`${show(value)}: Must be an IPAddress/IPNetwork for type IP`);
      const canonical = canonicalIp(value);
      if (canonical === null) throw invalid(`${value}: Could not parse IP address`);
      return { type, value: canonical };
    }
    case 'dirName':
      if (!Array.isArray(value)) throw invalid(`${show(value)}: Must be a Name for type dirName`);
      return { type, value: value as Name };
    case 'otherName':
      if (!isPlainObject(value)) throw invalid(`${show(value)}: Must be OtherNameModel for type otherName`);
      return { type, value: value as unknown as OtherName };
  }
}

/**
 * Validate a non-empty list of unique GeneralNames. Issues of an element carry loc `[index, ...]`;
 * duplicates (compared after normalisation) and emptiness are reported with loc `[]`.
 */
export function parseGeneralNames(input: unknown): GeneralName[] {
  return checkNonEmptyUnique(parseEach(requireList(input), parseGeneralName), canonicalKey, (gn) => {
    const shown = typeof gn.value === 'string' ? `'${gn.value}'` : show(gn.value);
    return `type='${gn.type}' value=${shown}`;
  });
}
