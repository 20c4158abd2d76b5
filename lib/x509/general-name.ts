/**
 * GeneralName (RFC 5280 §4.2.1.6, reference/models.md §4): DER ⇄ API JSON `{type, value}`.
 *
 *   GeneralName ::= CHOICE {
 *     otherName [0] OtherName, rfc822Name [1] IA5String, dNSName [2] IA5String,
 *     x400Address [3] ORAddress, directoryName [4] Name, ediPartyName [5] EDIPartyName,
 *     uniformResourceIdentifier [6] IA5String, iPAddress [7] OCTET STRING, registeredID [8] OID }
 *   OtherName ::= SEQUENCE { type-id OID, value [0] EXPLICIT ANY }
 *
 * The module is IMPLICIT-tagged, except directoryName, which is EXPLICIT because Name is a CHOICE.
 * x400Address and ediPartyName have no API representation (the reference rejects them too).
 */
import * as asn1 from './asn1';
import { Class, Node, Type } from './asn1';
import { formatUtc, parseDateTime } from './datetime';
import { X509Error, atLoc, collectIssues, invalid, parseError } from './errors';
import { IdnaError, encodeDomain } from './idna';
import { decodeName, encodeName, parseName } from './name';
import { isValidOid } from './oids';
import { GeneralName, GeneralNameType, Name, OtherName, OtherNameType } from './types';

export type { GeneralName, OtherName } from './types';

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

const OTHER_NAME_TYPES: readonly OtherNameType[] = [
  'UTF8String',
  'UNIVERSALSTRING',
  'IA5STRING',
  'BOOLEAN',
  'NULL',
  'UTCTIME',
  'GENERALIZEDTIME',
  'INTEGER',
  'OctetString',
];

/** Input-only aliases of otherName types (django-ca's OTHER_NAME_ALIASES). */
const OTHER_NAME_ALIASES: Readonly<Record<string, OtherNameType>> = {
  UTF8: 'UTF8String',
  UNIV: 'UNIVERSALSTRING',
  IA5: 'IA5STRING',
  BOOL: 'BOOLEAN',
  UTC: 'UTCTIME',
  GENTIME: 'GENERALIZEDTIME',
  INT: 'INTEGER',
};

/** pydantic's text for a Literal mismatch: `'a', 'b' or 'c'`. */
function literalList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Text of a value inside an error message (the reference prints Python's str()). */
function show(v: unknown): string {
  if (typeof v === 'string') return v;
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
}

// ===================================================================================================
// IP addresses and networks (Python `ipaddress` semantics, strict networks)

interface ParsedIp {
  /** Address bytes (4 or 16). */
  address: Buffer;
  /** Prefix length for networks, null for a single address. */
  prefix: number | null;
}

function parseIpv4(text: string): Buffer | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const octets = m.slice(1).map((o) => (o.length > 1 && o[0] === '0' ? 256 : Number(o)));
  return octets.every((o) => o <= 255) ? Buffer.from(octets) : null;
}

function parseIpv6(text: string): Buffer | null {
  // Scope ids (`fe80::1%eth0`) cannot be represented in a certificate.
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) return null;
  let s = text;
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return null;
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    if (!v4) return null;
    s = s.slice(0, lastColon + 1) + v4.readUInt16BE(0).toString(16) + ':' + v4.readUInt16BE(2).toString(16);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string): string[] | null => {
    if (part === '') return [];
    const g = part.split(':');
    return g.every((h) => /^[0-9A-Fa-f]{1,4}$/.test(h)) ? g : null;
  };
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  if (!left || !right) return null;
  let all: string[];
  if (halves.length === 2) {
    if (left.length + right.length > 7) return null;
    all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  } else {
    if (left.length !== 8) return null;
    all = left;
  }
  const out = Buffer.alloc(16);
  all.forEach((h, i) => out.writeUInt16BE(parseInt(h, 16), i * 2));
  return out;
}

function prefixFromMask(mask: Buffer): number | null {
  const bits = [...mask].map((b) => b.toString(2).padStart(8, '0')).join('');
  if (!/^1*0*$/.test(bits)) return null;
  const firstZero = bits.indexOf('0');
  return firstZero < 0 ? bits.length : firstZero;
}

function maskBytes(prefix: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < prefix; i++) out[i >> 3] |= 0x80 >> (i & 7);
  return out;
}

/** Address, or network `addr/prefix` (IPv4 also `addr/netmask` or `addr/hostmask`); null if invalid. */
function parseIp(text: string): ParsedIp | null {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const address = parseIpv4(addrText) ?? parseIpv6(addrText);
  if (!address) return null;
  if (slash < 0) return { address, prefix: null };
  const prefixText = text.slice(slash + 1);
  const maxPrefix = address.length * 8;
  let prefix: number | null = null;
  if (/^\d+$/.test(prefixText)) {
    prefix = Number(prefixText);
  } else if (address.length === 4) {
    const mask = parseIpv4(prefixText);
    if (mask) prefix = prefixFromMask(mask) ?? prefixFromMask(Buffer.from(mask.map((b) => ~b & 0xff)));
  }
  if (prefix === null || prefix > maxPrefix) return null;
  // Strict: host bits must be zero.
  const mask = maskBytes(prefix, address.length);
  if (address.some((b, i) => (b & ~mask[i] & 0xff) !== 0)) return null;
  return { address, prefix };
}

function formatIpv6(bytes: Buffer): string {
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return '::ffff:' + [...bytes.subarray(12)].join('.'); // IPv4-mapped, RFC 5952 §5
  }
  const hextets = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  // Longest run (>= 2) of zero groups, the first one on ties, becomes "::".
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (hextets[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && hextets[j] === '0') j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) return hextets.join(':');
  return hextets.slice(0, bestStart).join(':') + '::' + hextets.slice(bestStart + bestLen).join(':');
}

function formatIpAddress(bytes: Buffer): string {
  return bytes.length === 4 ? [...bytes].join('.') : formatIpv6(bytes);
}

function formatIp(ip: ParsedIp): string {
  const addr = formatIpAddress(ip.address);
  return ip.prefix === null ? addr : `${addr}/${ip.prefix}`;
}

/** iPAddress OCTET STRING content: 4/16 bytes for an address, 8/32 bytes (address + mask) for a network. */
function decodeIpBytes(bytes: Buffer): string {
  if (bytes.length === 4 || bytes.length === 16) return formatIpAddress(bytes);
  if (bytes.length === 8 || bytes.length === 32) {
    const half = bytes.length / 2;
    const prefix = prefixFromMask(bytes.subarray(half));
    if (prefix === null) throw parseError('iPAddress: netmask is not contiguous');
    // Host bits are not cleared: what we read must re-encode to the same bytes.
    return `${formatIpAddress(bytes.subarray(0, half))}/${prefix}`;
  }
  throw parseError(`iPAddress: invalid length ${bytes.length}`);
}

/**
 * iPAddress content for a normalised value. Host bits of a network are not checked here: a network
 * read from a certificate keeps them (so that it re-encodes to the same bytes).
 */
function encodeIpBytes(text: string): Buffer {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const address = parseIpv4(addrText) ?? parseIpv6(addrText);
  const prefixText = text.slice(slash + 1);
  if (!address || (slash >= 0 && (!/^\d+$/.test(prefixText) || Number(prefixText) > address.length * 8))) {
    throw invalid(`${text}: Could not parse IP address`);
  }
  return slash < 0 ? address : Buffer.concat([address, maskBytes(Number(prefixText), address.length)]);
}

/** Canonical text of an IP address or strict network, or null when `text` is neither. */
export function canonicalIp(text: string): string | null {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : null;
}

// ===================================================================================================
// DNS, email, URI normalisation (django-ca's dns_validator, email_validator, url_validator)

/** `encodeDomain` with the reference's error message. */
function idna(name: string): string {
  try {
    return encodeDomain(name);
  } catch (e) {
    if (e instanceof IdnaError) throw invalid(`Invalid domain: ${name}: ${e.message}`);
    throw e;
  }
}

/** IDNA-encode a DNS name; a leading `*.` or `.` is kept. */
export function normalizeDnsName(name: string): string {
  try {
    if (name.startsWith('*.')) return `*.${encodeDomain(name.slice(2))}`;
    if (name.startsWith('.')) return `.${encodeDomain(name.slice(1))}`;
    return encodeDomain(name);
  } catch (e) {
    if (e instanceof IdnaError) throw invalid(`Invalid domain: ${name}: ${e.message}`);
    throw e;
  }
}

const ASCII = /^[\x00-\x7f]*$/;

export function normalizeEmail(addr: string): string {
  const at = addr.lastIndexOf('@');
  if (at < 0) throw invalid(`Invalid email address: ${addr}`);
  const node = addr.slice(0, at);
  if (!node) throw invalid(`${addr}: node part is empty`);
  // rfc822Name is an IA5String; internationalised mailboxes need SmtpUTF8Mailbox (an otherName).
  if (!ASCII.test(node)) throw invalid(`Invalid email address: ${addr}`);
  return `${node}@${idna(addr.slice(at + 1))}`;
}

/**
 * Python's `urlsplit` + django-ca's url_validator: scheme and network location required, scheme
 * lower-cased, the host IDNA-encoded, a port validated (and then written as a number, with the host
 * lower-cased, as the reference does). Unlike the reference, user info and bracketed IPv6 hosts are
 * kept instead of failing IDNA.
 */
export function normalizeUri(input: string): string {
  // urlsplit strips leading C0 controls/space and removes tab/CR/LF anywhere.
  const url = input.replace(/^[\x00-\x20]+/, '').replace(/[\t\r\n]/g, '');
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(url);
  const rest = schemeMatch ? url.slice(schemeMatch[0].length) : url;
  const netlocMatch = rest.startsWith('//') ? /^\/\/([^/?#]*)/.exec(rest) : null;
  const netloc = netlocMatch ? netlocMatch[1] : '';
  if (!schemeMatch || !netloc) throw invalid(`URL requires scheme and network location: ${input}`);
  const scheme = schemeMatch[1].toLowerCase();
  const tail = rest.slice(2 + netloc.length);
  if (netloc.includes('[') !== netloc.includes(']')) {
    throw invalid(`Could not parse URL: ${input}: Invalid IPv6 URL`);
  }

  const at = netloc.lastIndexOf('@');
  const userinfo = at >= 0 ? netloc.slice(0, at + 1) : '';
  const hostport = netloc.slice(at + 1);
  let host: string;
  let portText: string | null;
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    host = hostport.slice(0, close + 1);
    const after = hostport.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw invalid(`Could not parse URL: ${input}: Invalid IPv6 URL`);
    portText = after ? after.slice(1) : null;
    if (!parseIpv6(host.slice(1, -1))) {
      const literal = host.slice(1, -1);
      throw invalid(`Could not parse URL: ${input}: '${literal}' does not appear to be an IPv4 or IPv6 address`);
    }
  } else {
    const colon = hostport.indexOf(':');
    host = colon < 0 ? hostport : hostport.slice(0, colon);
    portText = colon < 0 ? null : hostport.slice(colon + 1);
  }

  let port: number | null = null;
  if (portText) {
    if (!/^[0-9]+$/.test(portText)) {
      throw invalid(`Invalid port: ${input}: Port could not be cast to integer value as '${portText}'`);
    }
    port = Number(portText);
    if (port > 65535) throw invalid(`Invalid port: ${input}: Port out of range 0-65535`);
  }

  let newNetloc: string;
  if (port) {
    const lower = host.toLowerCase();
    newNetloc = `${userinfo}${lower.startsWith('[') ? lower : idna(lower)}:${port}`;
  } else {
    const encodedHost = host.startsWith('[') ? host : idna(host);
    newNetloc = `${userinfo}${encodedHost}${portText !== null ? ':' + portText : ''}`;
  }

  // urlunsplit drops an empty query or fragment marker.
  let pathAndRest = tail;
  const hash = pathAndRest.indexOf('#');
  let fragment = '';
  if (hash >= 0) {
    fragment = pathAndRest.slice(hash + 1);
    pathAndRest = pathAndRest.slice(0, hash);
  }
  const q = pathAndRest.indexOf('?');
  let query = '';
  if (q >= 0) {
    query = pathAndRest.slice(q + 1);
    pathAndRest = pathAndRest.slice(0, q);
  }
  const result =
    `${scheme}://${newNetloc}${pathAndRest}` + (query ? `?${query}` : '') + (fragment ? `#${fragment}` : '');
  // uniformResourceIdentifier is an IA5String.
  if (!ASCII.test(result)) throw invalid(`${input}: URI must be ASCII outside of the host name`);
  return result;
}

// ===================================================================================================
// otherName values

function parseInteger(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : null;
  if (typeof value !== 'string') return null;
  if (value.startsWith('0x')) {
    // Python int(v, 16): optional underscores between digits.
    const hex = value.slice(2);
    return /^[0-9A-Fa-f]+(_[0-9A-Fa-f]+)*$/.test(hex) ? BigInt('0x' + hex.replace(/_/g, '')) : null;
  }
  const m = /^\s*([+-]?)(\d+(?:_\d+)*)\s*$/.exec(value);
  if (!m) return null;
  const v = BigInt(m[2].replace(/_/g, ''));
  return m[1] === '-' ? -v : v;
}

/** JSON-friendly integer: a number when exact, else a bigint (models: values may exceed 2^53). */
function integerValue(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

function parseDateValue(type: OtherNameType, value: unknown): Date {
  let date: Date | null = null;
  if (value instanceof Date && !Number.isNaN(value.getTime())) date = value;
  else if (typeof value === 'string') {
    // Deliberate difference: the reference cannot accept these types over JSON (models.md §4).
    const parsed = parseDateTime(value);
    if (parsed && !parsed.aware) throw invalid(`${type}: Value must be a timezone-aware datetime.`);
    date = parsed?.date ?? null;
  }
  if (!date) throw invalid(`${type}: Value must be a datetime object.`);
  if (type === 'UTCTIME') {
    const year = date.getUTCFullYear();
    if (year < 1950 || year > 2049) throw invalid(`${type}: Value must be a datetime between 1950 and 2049.`);
    return new Date(Math.floor(date.getTime() / 1000) * 1000); // UTCTime has no fractional seconds
  }
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw invalid(`${type}: Value must be a datetime between 0000 and 9999.`);
  return date;
}

/** The reference's OtherNameModel consistency check, plus normalisation of the value. */
function normalizeOtherNameValue(type: OtherNameType, value: unknown): unknown {
  switch (type) {
    case 'UTF8String':
    case 'UNIVERSALSTRING':
    case 'IA5STRING':
      if (typeof value !== 'string') throw invalid(`${type}: Value must be a str object.`);
      if (type === 'IA5STRING' && !ASCII.test(value)) throw invalid(`${type}: Value must be an ASCII string.`);
      return value;
    case 'BOOLEAN':
      if (typeof value !== 'boolean') throw invalid(`${type}: Value must be a boolean.`);
      return value;
    case 'NULL':
      if (value !== null) throw invalid(`${type}: Value must be None.`);
      return null;
    case 'INTEGER': {
      const v = parseInteger(value);
      if (v === null) throw invalid(`${type}: Value must be an int.`);
      return integerValue(v);
    }
    case 'OctetString': {
      if (typeof value !== 'string') throw invalid(`${type}: Value must be a str object.`);
      // bytes.fromhex: pairs of hex digits, whitespace allowed between them.
      if (!/^\s*(?:[0-9A-Fa-f]{2}\s*)*$/.test(value)) throw invalid(`${type}: Value must be a hex string.`);
      return value.replace(/\s/g, '').toUpperCase();
    }
    case 'UTCTIME':
    case 'GENERALIZEDTIME':
      return formatUtc(parseDateValue(type, value));
  }
}

function generalizedTimeText(d: Date): string {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const base = iso.slice(0, 19).replace(/[-:T]/g, '');
  const ms = iso.slice(20, 23).replace(/0+$/, '');
  return base + (ms ? `.${ms}` : '') + 'Z';
}

function encodeOtherNameValue(on: OtherName): Node {
  const v = on.value;
  switch (on.type) {
    case 'UTF8String':
      return asn1.utf8(v as string);
    case 'UNIVERSALSTRING':
      return asn1.string(asn1.TAG_UNIVERSAL_STRING, v as string);
    case 'IA5STRING':
      return asn1.ia5(v as string);
    case 'BOOLEAN':
      return asn1.bool(v as boolean);
    case 'NULL':
      return asn1.nullValue();
    case 'INTEGER':
      return asn1.integer(BigInt(v as number | bigint));
    case 'OctetString':
      return asn1.octets(Buffer.from(v as string, 'hex'));
    case 'UTCTIME':
      return asn1.utcTime(parseDateValue('UTCTIME', v));
    case 'GENERALIZEDTIME':
      return asn1.string(Type.GENERALIZEDTIME, generalizedTimeText(parseDateValue('GENERALIZEDTIME', v)));
  }
}

function decodeOtherNameValue(node: Node): { type: OtherNameType; value: unknown } {
  const what = 'otherName value';
  const unknown = () => new X509Error('unsupported', `${node.type}: Unknown otherName type found.`);
  if (node.tagClass !== Class.UNIVERSAL || node.constructed) throw unknown();
  switch (node.type as number) {
    case Type.UTF8:
      return { type: 'UTF8String', value: asn1.readString(node, what) };
    case asn1.TAG_UNIVERSAL_STRING:
      return { type: 'UNIVERSALSTRING', value: asn1.readString(node, what) };
    case Type.IA5STRING:
      return { type: 'IA5STRING', value: asn1.readString(node, what) };
    case Type.BOOLEAN:
      return { type: 'BOOLEAN', value: asn1.readBoolean(node, what) };
    case Type.NULL:
      if (asn1.contentBytes(node, what).length !== 0) throw parseError(`${what}: malformed NULL`);
      return { type: 'NULL', value: null };
    case Type.INTEGER:
      return { type: 'INTEGER', value: integerValue(asn1.readInteger(node, what)) };
    case Type.OCTETSTRING:
      return { type: 'OctetString', value: asn1.readOctets(node, what).toString('hex').toUpperCase() };
    case Type.UTCTIME:
      return { type: 'UTCTIME', value: formatUtc(asn1.readTime(node, what)) };
    case Type.GENERALIZEDTIME:
      return { type: 'GENERALIZEDTIME', value: formatUtc(asn1.readTime(node, what)) };
    default:
      throw unknown();
  }
}

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
      return asn1.context(TAG_OTHER_NAME, true, [
        asn1.oid(gn.value.oid),
        asn1.explicit(0, encodeOtherNameValue(gn.value)),
      ]);
  }
}

/** GeneralNames as a universal SEQUENCE; wrap with `asn1.implicit(n, ...)` where the syntax says so. */
export function encodeGeneralNames(list: GeneralName[]): Node {
  return asn1.seq(list.map(encodeGeneralName));
}

// ===================================================================================================
// Untrusted input → normalised GeneralName

function parseOid(value: unknown, loc: (string | number)[]): string {
  if (typeof value !== 'string') throw invalid('Input should be a valid string', loc, 'string_type');
  if (!isValidOid(value)) throw invalid(`${value}: Invalid object identifier`, loc);
  return value;
}

/** Validate an OtherName object (models.md §4); loc relative to it. */
export function parseOtherName(input: unknown): OtherName {
  if (!isPlainObject(input)) {
    throw invalid('Input should be a valid dictionary or instance of OtherNameModel', [], 'model_type');
  }
  let oid = '';
  let type = 'UTF8String' as OtherNameType;
  collectIssues([
    () => {
      if (!('oid' in input)) throw invalid('Field required', ['oid'], 'missing');
      oid = parseOid(input.oid, ['oid']);
    },
    () => {
      if (!('type' in input)) throw invalid('Field required', ['type'], 'missing');
      const raw = input.type;
      const canonical = typeof raw === 'string' ? (OTHER_NAME_ALIASES[raw] ?? raw) : raw;
      if (!OTHER_NAME_TYPES.includes(canonical as OtherNameType)) {
        throw invalid(`Input should be ${literalList(OTHER_NAME_TYPES)}`, ['type'], 'literal_error');
      }
      type = canonical as OtherNameType;
    },
    () => {
      if (!('value' in input)) throw invalid('Field required', ['value'], 'missing');
    },
  ]);
  return { oid, type, value: normalizeOtherNameValue(type, input.value) };
}

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

function generalNameKey(gn: GeneralName): string {
  return JSON.stringify(gn, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}

/**
 * Validate a non-empty list of unique GeneralNames. Issues of an element carry loc `[index, ...]`;
 * duplicates (compared after normalisation) and emptiness are reported with loc `[]`.
 */
export function parseGeneralNames(input: unknown): GeneralName[] {
  if (!Array.isArray(input)) throw invalid('Input should be a valid list', [], 'list_type');
  const list: GeneralName[] = [];
  collectIssues(input.map((item, index) => () => (list[index] = atLoc([index], () => parseGeneralName(item)))));
  const seen = new Set<string>();
  for (const gn of list) {
    const key = generalNameKey(gn);
    if (seen.has(key)) {
      const shown = typeof gn.value === 'string' ? `'${gn.value}'` : show(gn.value);
      throw invalid(`type='${gn.type}' value=${shown}: value must be unique`);
    }
    seen.add(key);
  }
  if (list.length === 0) throw invalid('value must not be empty');
  return list;
}
