/**
 * otherName GeneralNames (RFC 5280 §4.2.1.6: `OtherName ::= SEQUENCE { type-id OID, value [0]
 * EXPLICIT ANY }`): the value types the API can express (UTF8String, UniversalString, IA5String,
 * BOOLEAN, NULL, UTCTime, GeneralizedTime, INTEGER, OCTET STRING), both directions, and the input
 * aliases of the original (`UTF8`, `INT`, ...).
 */
import * as asn1 from './asn1';
import { Class, Node, Type } from './asn1';
import { formatUtc, parseDateTime } from './datetime';
import { X509Error, collectIssues, invalid, parseError } from './errors';
import { literalList } from './error-text';
import { isValidOid } from './oids';
import { isPlainObject } from './plain-object';
import type { OtherName, OtherNameType } from './types';

const ASCII = /^[\x00-\x7f]*$/;

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
    // Deliberate difference: the reference cannot accept these types over JSON (docs/COMPATIBILITY.md §2).
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

export function encodeOtherNameValue(on: OtherName): Node {
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

export function decodeOtherNameValue(node: Node): { type: OtherNameType; value: unknown } {
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

export function parseOid(value: unknown, loc: (string | number)[]): string {
  if (typeof value !== 'string') throw invalid('Input should be a valid string', loc, 'string_type');
  if (!isValidOid(value)) throw invalid(`${value}: Invalid object identifier`, loc);
  return value;
}

/** Validate an OtherName object (docs/COMPATIBILITY.md §2); loc relative to it. */
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
