/**
 * Authority/Subject Information Access (RFC 5280 §4.2.2.1, §4.2.2.2), docs/COMPATIBILITY.md §2:
 *
 *   SEQUENCE SIZE (1..MAX) OF AccessDescription
 *   AccessDescription ::= SEQUENCE { accessMethod OBJECT IDENTIFIER, accessLocation GeneralName }
 *
 * The two extensions differ only in which access methods they accept on input.
 */
import { parseDer, readOid, readSequence, seq, oid as oidNode, toDer } from '../asn1';
import { invalid, parseError } from '../errors';
import { decodeGeneralName, encodeGeneralName, parseGeneralName } from '../general-name';
import { ACCESS_METHOD_ALIASES } from '../oids';
import type { GeneralName } from '../types';
import { pyGeneralName, pyStr } from '../error-text';
import type { ExtensionCodec } from './codec';
import {
  canonicalKey,
  checkNonEmptyUnique,
  parseEach,
  parseModel,
  requireList,
  requireObject,
  requireOid,
  requireText,
} from '../json-input';

export interface AccessDescription {
  access_method: string;
  access_location: GeneralName;
}

export function decodeAccessDescriptions(der: Buffer, what: string): AccessDescription[] {
  return readSequence(parseDer(der, what), what).map((node) => {
    const parts = readSequence(node, `${what} AccessDescription`);
    if (parts.length !== 2) throw parseError(`${what}: AccessDescription must have two elements`);
    return {
      access_method: readOid(parts[0], `${what} accessMethod`),
      access_location: decodeGeneralName(parts[1]),
    };
  });
}

export function encodeAccessDescriptions(value: AccessDescription[]): Buffer {
  return toDer(seq(value.map((d) => seq([oidNode(d.access_method), encodeGeneralName(d.access_location)]))));
}

function parseAccessMethod(raw: unknown): string {
  // Aliases are resolved before the OID check, as the reference's BeforeValidator does.
  const alias = typeof raw === 'string' ? ACCESS_METHOD_ALIASES[raw] : undefined;
  return requireOid(requireText(alias ?? raw));
}

function parseAccessDescription(input: unknown): AccessDescription {
  return parseModel<AccessDescription>(
    requireObject(input, 'AccessDescriptionModel'),
    { access_method: parseAccessMethod, access_location: parseGeneralName },
    ['access_method', 'access_location'],
  );
}

function pyAccessDescription(d: AccessDescription): string {
  return `access_method=${pyStr(d.access_method)} access_location=${pyGeneralName(d.access_location)}`;
}

/** Validate a list of access descriptions (the value of the extension). */
export function parseAccessDescriptions(input: unknown): AccessDescription[] {
  const list = parseEach(requireList(input), parseAccessDescription);
  return checkNonEmptyUnique(list, canonicalKey, pyAccessDescription);
}

/**
 * `acceptable` are the dotted access methods the extension allows; the reference checks them on the
 * extension model after the list itself is valid, so that issue has the extension's loc (`[]` here,
 * see `checkModel` in codec.ts).
 */
export function checkAccessMethods(list: AccessDescription[], acceptable: readonly string[]): void {
  for (const d of list) {
    if (!acceptable.includes(d.access_method)) {
      throw invalid(`${d.access_method}: access_method not acceptable for this extension.`);
    }
  }
}

export function accessDescriptionsCodec(
  type: 'authority_information_access' | 'subject_information_access',
  oid: string,
  acceptable: readonly string[],
  configurable: boolean,
): ExtensionCodec<AccessDescription[]> {
  return {
    type,
    oid,
    defaultCritical: false,
    requiredCritical: false,
    configurable,
    decode: (der) => decodeAccessDescriptions(der, type),
    encode: encodeAccessDescriptions,
    parse: parseAccessDescriptions,
    checkModel: (value) => checkAccessMethods(value, acceptable),
  };
}
