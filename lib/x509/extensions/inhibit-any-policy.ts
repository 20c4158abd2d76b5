/**
 * InhibitAnyPolicy (RFC 5280 §4.2.1.14): SkipCerts ::= INTEGER (0..MAX) ⇄ integer ≥ 0 (docs/COMPATIBILITY.md §2).
 */
import { integer, parseDer, readInteger, toDer } from '../asn1';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { readSmallNonNegative } from '../api-integer';
import { present, requireInt } from '../json-input';

export const inhibitAnyPolicyCodec: ExtensionCodec<number> = {
  type: 'inhibit_any_policy',
  oid: EXTENSION_OIDS.inhibit_any_policy,
  defaultCritical: true,
  requiredCritical: true,
  configurable: false,

  decode(der) {
    return readSmallNonNegative(readInteger(parseDer(der, 'InhibitAnyPolicy'), 'InhibitAnyPolicy'), 'InhibitAnyPolicy');
  },

  encode(value) {
    return toDer(integer(value));
  },

  parse(input) {
    return requireInt(present(input), 0);
  },
};
