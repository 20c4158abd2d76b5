/**
 * Codecs whose whole value is a GeneralNames list (subject/issuer alternative name): the extnValue is
 * `GeneralNames ::= SEQUENCE SIZE (1..MAX) OF GeneralName` and the API value the list itself.
 */
import { parseDer, toDer } from '../asn1';
import { decodeGeneralNames, encodeGeneralNames, parseGeneralNames } from '../general-name';
import type { GeneralName } from '../types';
import type { ExtensionCodec } from './codec';

export function generalNameListCodec(
  type: 'subject_alternative_name' | 'issuer_alternative_name',
  oid: string,
): ExtensionCodec<GeneralName[]> {
  return {
    type,
    oid,
    defaultCritical: false,
    requiredCritical: null,
    configurable: true,
    decode: (der) => decodeGeneralNames(parseDer(der, type)),
    encode: (value) => toDer(encodeGeneralNames(value)),
    // Non-empty and unique, each name normalised (IDNA etc.); locs are `[index, ...]`.
    parse: (input) => parseGeneralNames(input),
  };
}
