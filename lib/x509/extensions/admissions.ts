/**
 * Admissions (Common PKI / ISIS-MTT, OID 1.3.36.8.3.3), docs/COMPATIBILITY.md §2:
 *
 *   AdmissionSyntax ::= SEQUENCE {
 *        admissionAuthority   GeneralName OPTIONAL,
 *        contentsOfAdmissions SEQUENCE OF Admissions }
 *   Admissions ::= SEQUENCE {
 *        admissionAuthority [0] EXPLICIT GeneralName OPTIONAL,
 *        namingAuthority    [1] EXPLICIT NamingAuthority OPTIONAL,
 *        professionInfos    SEQUENCE OF ProfessionInfo }
 *   NamingAuthority ::= SEQUENCE {
 *        namingAuthorityId   OBJECT IDENTIFIER OPTIONAL,
 *        namingAuthorityUrl  IA5String OPTIONAL,
 *        namingAuthorityText DirectoryString(SIZE(1..128)) OPTIONAL }
 *   ProfessionInfo ::= SEQUENCE {
 *        namingAuthority    [0] EXPLICIT NamingAuthority OPTIONAL,
 *        professionItems    SEQUENCE OF DirectoryString(SIZE(1..128)),
 *        professionOIDs     SEQUENCE OF OBJECT IDENTIFIER OPTIONAL,
 *        registrationNumber PrintableString(SIZE(1..128)) OPTIONAL,
 *        addProfessionInfo  OCTET STRING OPTIONAL }
 *
 * DirectoryStrings are written as UTF8String (what the reference's library writes); any string type is read.
 */
import {
  type Node,
  Class,
  Type,
  children,
  contextTag,
  explicit,
  ia5,
  isStringNode,
  octets,
  oid as oidNode,
  parseDer,
  printable,
  readOctets,
  readOid,
  readSequence,
  readString,
  seq,
  toDer,
  utf8,
} from '../asn1';
import { invalid, parseError } from '../errors';
import { decodeGeneralName, encodeGeneralName, parseGeneralName } from '../general-name';
import { EXTENSION_OIDS } from '../oids';
import type { GeneralName } from '../types';
import type { ExtensionCodec } from './codec';
import {
  nullable,
  parseEach,
  parseModel,
  requireLaxBase64,
  requireList,
  requireMinLength,
  requireObject,
  requireOid,
  requireText,
} from '../json-input';

export interface NamingAuthority {
  id: string | null;
  url: string | null;
  text: string | null;
}

export interface ProfessionInfo {
  naming_authority: NamingAuthority | null;
  profession_items: string[];
  profession_oids: string[] | null;
  registration_number: string | null;
  /** base64 */
  add_profession_info: string | null;
}

export interface Admission {
  admission_authority: GeneralName | null;
  naming_authority: NamingAuthority | null;
  profession_infos: ProfessionInfo[];
}

export interface AdmissionsValue {
  authority: GeneralName | null;
  admissions: Admission[];
}

const WHAT = 'admissions';

// ---------------------------------------------------------------------------------------------------
// DER → value

/** Walks the children of a SEQUENCE whose optional elements are recognised by their tag. */
class Cursor {
  private i = 0;
  constructor(
    private readonly parts: Node[],
    private readonly what: string,
  ) {}
  takeIf(test: (n: Node) => boolean): Node | undefined {
    const n = this.parts[this.i];
    if (n && test(n)) {
      this.i++;
      return n;
    }
    return undefined;
  }
  take(): Node {
    const n = this.parts[this.i++];
    if (!n) throw parseError(`${this.what}: missing element`);
    return n;
  }
  end(): void {
    if (this.i !== this.parts.length) throw parseError(`${this.what}: unexpected element`);
  }
}

const isUniversal = (type: number) => (n: Node) => n.tagClass === Class.UNIVERSAL && n.type === type;
const isContext = (tag: number) => (n: Node) => contextTag(n) === tag;

function explicitInner(node: Node, what: string): Node {
  const inner = children(node, what);
  if (inner.length !== 1) throw parseError(`${what}: expected one explicitly tagged value`);
  return inner[0];
}

function decodeNamingAuthority(node: Node): NamingAuthority {
  const what = `${WHAT} NamingAuthority`;
  const c = new Cursor(readSequence(node, what), what);
  const id = c.takeIf(isUniversal(Type.OID));
  const url = c.takeIf(isUniversal(Type.IA5STRING));
  const text = c.takeIf(isStringNode);
  c.end();
  return {
    id: id ? readOid(id, what) : null,
    url: url ? readString(url, what) : null,
    text: text ? readString(text, what) : null,
  };
}

function decodeProfessionInfo(node: Node): ProfessionInfo {
  const what = `${WHAT} ProfessionInfo`;
  const c = new Cursor(readSequence(node, what), what);
  const naming = c.takeIf(isContext(0));
  const items = readSequence(c.take(), `${what} professionItems`).map((n) => readString(n, what));
  const oids = c.takeIf(isUniversal(Type.SEQUENCE));
  const registration = c.takeIf(isUniversal(Type.PRINTABLESTRING));
  const addInfo = c.takeIf(isUniversal(Type.OCTETSTRING));
  c.end();
  return {
    naming_authority: naming ? decodeNamingAuthority(explicitInner(naming, what)) : null,
    profession_items: items,
    profession_oids: oids ? readSequence(oids, what).map((n) => readOid(n, what)) : null,
    registration_number: registration ? readString(registration, what) : null,
    add_profession_info: addInfo ? readOctets(addInfo, what).toString('base64') : null,
  };
}

function decodeAdmission(node: Node): Admission {
  const what = `${WHAT} Admissions`;
  const c = new Cursor(readSequence(node, what), what);
  const authority = c.takeIf(isContext(0));
  const naming = c.takeIf(isContext(1));
  const infos = readSequence(c.take(), `${what} professionInfos`).map(decodeProfessionInfo);
  c.end();
  return {
    admission_authority: authority ? decodeGeneralName(explicitInner(authority, what)) : null,
    naming_authority: naming ? decodeNamingAuthority(explicitInner(naming, what)) : null,
    profession_infos: infos,
  };
}

function decode(der: Buffer): AdmissionsValue {
  const c = new Cursor(readSequence(parseDer(der, WHAT), WHAT), WHAT);
  // The untagged optional GeneralName is a CHOICE of context-specific tags; the SEQUENCE OF is universal.
  const authority = c.takeIf((n) => n.tagClass === Class.CONTEXT_SPECIFIC);
  const admissions = readSequence(c.take(), `${WHAT} contentsOfAdmissions`).map(decodeAdmission);
  c.end();
  return { authority: authority ? decodeGeneralName(authority) : null, admissions };
}

// ---------------------------------------------------------------------------------------------------
// value → DER

function encodeNamingAuthority(na: NamingAuthority): Node {
  const parts: Node[] = [];
  if (na.id !== null) parts.push(oidNode(na.id));
  if (na.url !== null) parts.push(ia5(na.url));
  if (na.text !== null) parts.push(utf8(na.text));
  return seq(parts);
}

function encodeProfessionInfo(pi: ProfessionInfo): Node {
  const parts: Node[] = [];
  if (pi.naming_authority !== null) parts.push(explicit(0, encodeNamingAuthority(pi.naming_authority)));
  parts.push(seq(pi.profession_items.map(utf8)));
  if (pi.profession_oids !== null) parts.push(seq(pi.profession_oids.map(oidNode)));
  if (pi.registration_number !== null) parts.push(printable(pi.registration_number));
  if (pi.add_profession_info !== null) parts.push(octets(Buffer.from(pi.add_profession_info, 'base64')));
  return seq(parts);
}

function encodeAdmission(a: Admission): Node {
  const parts: Node[] = [];
  if (a.admission_authority !== null) parts.push(explicit(0, encodeGeneralName(a.admission_authority)));
  if (a.naming_authority !== null) parts.push(explicit(1, encodeNamingAuthority(a.naming_authority)));
  parts.push(seq(a.profession_infos.map(encodeProfessionInfo)));
  return seq(parts);
}

function encode(value: AdmissionsValue): Buffer {
  const parts: Node[] = [];
  if (value.authority !== null) parts.push(encodeGeneralName(value.authority));
  parts.push(seq(value.admissions.map(encodeAdmission)));
  return toDer(seq(parts));
}

// ---------------------------------------------------------------------------------------------------
// API input → value

const MAX = 128;
const boundedString = (raw: unknown) => requireText(raw, MAX);
/** An OID in a `str` field: the string rules first, as pydantic applies them. */
const oidString = (raw: unknown) => requireOid(requireText(raw));

/** IA5String can only hold ASCII; refuse what could not be written faithfully. */
function parseUrl(raw: unknown): string {
  const s = boundedString(raw);
  if (!/^[\x00-\x7f]*$/.test(s)) throw invalid(`${s}: must contain only ASCII characters`);
  return s;
}

/** PrintableString (X.680 §41.4) has a small alphabet; refuse what could not be written faithfully. */
function parseRegistrationNumber(raw: unknown): string {
  const s = boundedString(raw);
  if (!/^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s)) throw invalid(`${s}: must be a valid PrintableString`);
  return s;
}

function parseNamingAuthority(input: unknown): NamingAuthority {
  return parseModel<NamingAuthority>(requireObject(input, 'NamingAuthorityModel'), {
    id: nullable(oidString),
    url: nullable(parseUrl),
    text: nullable(boundedString),
  });
}

function parseProfessionInfo(input: unknown): ProfessionInfo {
  const pi = parseModel<ProfessionInfo>(
    requireObject(input, 'ProfessionInfoModel'),
    {
      naming_authority: nullable(parseNamingAuthority),
      profession_items: (raw) => requireMinLength(parseEach(requireList(raw), boundedString), 1),
      profession_oids: nullable((raw) => parseEach(requireList(raw), oidString)),
      registration_number: nullable(parseRegistrationNumber),
      add_profession_info: nullable(requireLaxBase64),
    },
    ['profession_items'],
  );
  if (pi.profession_oids !== null && pi.profession_oids.length !== pi.profession_items.length) {
    throw invalid('if present, profession_oids must have the same length as profession_items.');
  }
  return pi;
}

function parseAdmission(input: unknown): Admission {
  return parseModel<Admission>(
    requireObject(input, 'AdmissionModel'),
    {
      admission_authority: nullable(parseGeneralName),
      naming_authority: nullable(parseNamingAuthority),
      profession_infos: (raw) => requireMinLength(parseEach(requireList(raw), parseProfessionInfo), 1),
    },
    ['profession_infos'],
  );
}

function parse(input: unknown): AdmissionsValue {
  const model = requireObject(input, 'AdmissionsValueModel');
  return parseModel<AdmissionsValue>(model, {
    authority: nullable(parseGeneralName),
    // `admissions` defaults to [] when omitted (an explicit null is not a list).
    admissions: (raw) => parseEach(requireList(model.admissions === undefined ? [] : raw), parseAdmission),
  });
}

export const admissionsCodec: ExtensionCodec<AdmissionsValue> = {
  type: 'admissions',
  oid: EXTENSION_OIDS.admissions,
  defaultCritical: false,
  requiredCritical: null,
  configurable: true,
  decode,
  encode,
  parse,
};
