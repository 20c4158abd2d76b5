/**
 * X.501 Names (docs/COMPATIBILITY.md §2): DER RDNSequence ⇄ API JSON `[{oid, value}]`.
 *
 * The API's Name is flat: one attribute per RDN, in certificate order. Reading a multi-valued RDN
 * flattens it (as the reference does); writing always emits one attribute per RDN, like
 * `cryptography`'s `x509.Name([...attributes])`, with the same default string types so that names
 * we write are byte-identical to the ones the reference service writes.
 */
import * as asn1 from './asn1';
import { Node, Type } from './asn1';
import { X509Error, collectIssues, invalid, parseError, ValidationIssue } from './errors';
import {
  MULTI_VALUED_NAME_OIDS,
  NAME_OID_ALIASES,
  NAME_OID_LONG_NAMES,
  OID_COMMON_NAME,
  OID_COUNTRY_NAME,
  OID_JURISDICTION_COUNTRY_NAME,
  OID_X500_UNIQUE_IDENTIFIER,
  isValidOid,
} from './oids';
import { isPlainObject } from './plain-object';
import { Name, NameAttribute } from './types';

export type { Name, NameAttribute } from './types';

const OID_SERIAL_NUMBER = '2.5.4.5';
const OID_DN_QUALIFIER = '2.5.4.46';
const OID_EMAIL_ADDRESS = '1.2.840.113549.1.9.1';
const OID_DOMAIN_COMPONENT = '0.9.2342.19200300.100.1.25';

/** `cryptography`'s default ASN.1 string type per attribute (everything else is UTF8String). */
const DEFAULT_STRING_TAG: Readonly<Record<string, number>> = {
  [OID_COUNTRY_NAME]: Type.PRINTABLESTRING,
  [OID_JURISDICTION_COUNTRY_NAME]: Type.PRINTABLESTRING,
  [OID_SERIAL_NUMBER]: Type.PRINTABLESTRING,
  [OID_DN_QUALIFIER]: Type.PRINTABLESTRING,
  [OID_EMAIL_ADDRESS]: Type.IA5STRING,
  [OID_DOMAIN_COMPONENT]: Type.IA5STRING,
};

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;
const IA5 = /^[\x00-\x7f]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A lone UTF-16 surrogate cannot be encoded as UTF-8 (docs/reference/differences.md D16). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

// ---------------------------------------------------------------------------------------------------
// DER → JSON

function decodeAttribute(node: Node): NameAttribute {
  const what = 'Name attribute';
  const parts = asn1.readSequence(node, what);
  if (parts.length !== 2) throw parseError(`${what}: expected type and value`);
  const oid = asn1.readOid(parts[0], `${what} type`);
  if (oid === OID_X500_UNIQUE_IDENTIFIER) {
    const { bytes } = asn1.readBitString(parts[1], 'x500UniqueIdentifier');
    return { oid, value: bytes.toString('base64') };
  }
  return { oid, value: asn1.readString(parts[1], `Name attribute ${oid}`) };
}

/** A RelativeDistinguishedName (SET OF AttributeTypeAndValue) → its attributes. */
export function decodeRelativeName(node: Node): Name {
  const attributes = asn1.readSet(node, 'RelativeDistinguishedName');
  if (attributes.length === 0) throw parseError('RelativeDistinguishedName: empty');
  return attributes.map(decodeAttribute);
}

/** RDNSequence → flat list of attributes in certificate order. */
export function decodeName(node: Node): Name {
  return asn1.readSequence(node, 'Name').flatMap(decodeRelativeName);
}

// ---------------------------------------------------------------------------------------------------
// JSON → DER

function encodeValue(attr: NameAttribute): Node {
  if (attr.oid === OID_X500_UNIQUE_IDENTIFIER) return asn1.bitString(Buffer.from(attr.value, 'base64'));
  const tag = DEFAULT_STRING_TAG[attr.oid];
  // A value the restricted type cannot carry is written as UTF8String rather than corrupted.
  if (tag === Type.PRINTABLESTRING && PRINTABLE.test(attr.value)) return asn1.printable(attr.value);
  if (tag === Type.IA5STRING && IA5.test(attr.value)) return asn1.ia5(attr.value);
  return asn1.utf8(attr.value);
}

function encodeAttribute(attr: NameAttribute): Node {
  return asn1.seq([asn1.oid(attr.oid), encodeValue(attr)]);
}

/** Several attributes as one (multi-valued) RDN; DER sorts SET OF by encoding. */
export function encodeRelativeName(name: Name): Node {
  const encoded = name.map(encodeAttribute).map((n) => ({ n, der: asn1.toDer(n) }));
  encoded.sort((a, b) => Buffer.compare(a.der, b.der));
  return asn1.set(encoded.map((e) => e.n));
}

/** Normalised Name → RDNSequence, one attribute per RDN. */
export function encodeName(name: Name): Node {
  return asn1.seq(name.map((attr) => asn1.set([encodeAttribute(attr)])));
}

// ---------------------------------------------------------------------------------------------------
// Untrusted input → normalised Name

function stringIssue(value: unknown, loc: (string | number)[]): ValidationIssue | null {
  if (typeof value !== 'string') return { type: 'string_type', loc, msg: 'Input should be a valid string' };
  if (LONE_SURROGATE.test(value)) {
    return {
      type: 'string_unicode',
      loc,
      msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
    };
  }
  return null;
}

/** Alias or dotted string → dotted OID; throws with loc `['oid']`. */
export function parseNameOid(input: unknown): string {
  const issue = stringIssue(input, ['oid']);
  if (issue) throw new X509Error('validation', issue.msg, [issue]);
  const text = input as string;
  const dotted = Object.prototype.hasOwnProperty.call(NAME_OID_ALIASES, text) ? NAME_OID_ALIASES[text] : text;
  if (!isValidOid(dotted)) throw invalid(`${text}: Invalid object identifier`, ['oid']);
  return dotted;
}

/** Validate one NameAttribute (docs/COMPATIBILITY.md §2); loc relative to the attribute. */
export function parseNameAttribute(input: unknown): NameAttribute {
  if (!isPlainObject(input)) {
    throw invalid('Input should be a valid dictionary or instance of NameAttributeModel', [], 'model_type');
  }
  let oid = '';
  let value = '';
  collectIssues([
    () => {
      if (!('oid' in input)) throw invalid('Field required', ['oid'], 'missing');
      oid = parseNameOid(input.oid);
    },
    () => {
      if (!('value' in input)) throw invalid('Field required', ['value'], 'missing');
      const issue = stringIssue(input.value, ['value']);
      if (issue) throw new X509Error('validation', issue.msg, [issue]);
      value = input.value as string;
    },
  ]);
  if ((oid === OID_COUNTRY_NAME || oid === OID_JURISDICTION_COUNTRY_NAME) && [...value].length !== 2) {
    throw invalid(`${value}: Must have exactly two characters`);
  }
  if (oid === OID_COMMON_NAME) {
    const length = [...value].length; // Python counts code points
    if (length < 1 || length > 64) {
      throw invalid(`commonName length must be >= 1 and <= 64, but it was ${length}`);
    }
  }
  if (oid === OID_X500_UNIQUE_IDENTIFIER && !BASE64.test(value)) {
    throw invalid(`${value}: Not a valid base64 string`);
  }
  return { oid, value };
}

/** Long name of an attribute type for messages: `commonName`, or the dotted OID when unknown. */
export function nameOidLongName(oid: string): string {
  return NAME_OID_LONG_NAMES[oid] ?? oid;
}

/** Reject attribute types that may occur only once (docs/COMPATIBILITY.md §2); loc = the name. */
export function checkDuplicateAttributes(name: Name): void {
  const seen = new Set<string>();
  for (const { oid } of name) {
    if (seen.has(oid) && !MULTI_VALUED_NAME_OIDS.has(oid)) {
      throw invalid(`attribute of type ${nameOidLongName(oid)} must not occur more then once in a name.`);
    }
    seen.add(oid);
  }
}

/**
 * Validate an API Name: aliases → dotted OIDs, every rule of docs/COMPATIBILITY.md §2 Issues of single
 * attributes carry loc `[index, ...]`; the duplicate check (run only when all attributes are valid,
 * as pydantic does) has loc `[]`.
 */
export function parseName(input: unknown): Name {
  if (!Array.isArray(input)) throw invalid('Input should be a valid list', [], 'list_type');
  const name: Name = [];
  collectIssues(
    input.map((item, index) => () => {
      try {
        name[index] = parseNameAttribute(item);
      } catch (e) {
        if (e instanceof X509Error && e.code === 'validation') {
          throw new X509Error(
            'validation',
            e.message,
            e.issues.map((i) => ({ ...i, loc: [index, ...i.loc] })),
          );
        }
        throw e;
      }
    }),
  );
  checkDuplicateAttributes(name);
  return name;
}

/** Value of the first commonName attribute, `''` when there is none. */
export function firstCommonName(name: Name): string {
  return name.find((a) => a.oid === OID_COMMON_NAME)?.value ?? '';
}
