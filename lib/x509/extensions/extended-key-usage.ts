/**
 * ExtendedKeyUsage (RFC 5280 §4.2.1.12): SEQUENCE OF KeyPurposeId ⇄ array of dotted OIDs (docs/COMPATIBILITY.md §2).
 * Names such as `serverAuth` are accepted on input; output is always dotted, in certificate/configured order.
 */
import { oid, parseDer, readOid, readSequence, seq, toDer } from '../asn1';
import { parseError } from '../errors';
import { EXTENDED_KEY_USAGE_ALIASES, EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { parseNonEmptySet, present, requireOid } from '../json-input';

export const extendedKeyUsageCodec: ExtensionCodec<string[]> = {
  type: 'extended_key_usage',
  oid: EXTENSION_OIDS.extended_key_usage,
  defaultCritical: false,
  requiredCritical: null,
  configurable: true,

  decode(der) {
    const usages = readSequence(parseDer(der, 'ExtendedKeyUsage'), 'ExtendedKeyUsage').map((n) => readOid(n, 'KeyPurposeId'));
    if (usages.length === 0) throw parseError('ExtendedKeyUsage: empty');
    return usages;
  },

  encode(usages) {
    return toDer(seq(usages.map((u) => oid(u))));
  },

  parse(input) {
    return parseNonEmptySet(present(input), (v) =>
      requireOid(typeof v === 'string' && Object.hasOwn(EXTENDED_KEY_USAGE_ALIASES, v) ? EXTENDED_KEY_USAGE_ALIASES[v] : v),
    );
  },
};
