/**
 * Extensions whose value is an ASN.1 NULL and whose API value is `null` (docs/COMPATIBILITY.md §2): OCSPNoCheck
 * and the precertificate poison. Input may omit `value` or give null.
 */
import { contentBytes, expectUniversal, nullValue, parseDer, toDer, Type } from '../asn1';
import { invalid, parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';

export function nullValueCodec(
  type: 'ocsp_no_check' | 'precert_poison',
  critical: { defaultCritical: boolean; requiredCritical: boolean | null },
): ExtensionCodec<null> {
  return {
    type,
    oid: EXTENSION_OIDS[type],
    ...critical,
    configurable: true,

    decode(der) {
      const node = expectUniversal(parseDer(der, type), Type.NULL, type);
      if (contentBytes(node, type).length !== 0) throw parseError(`${type}: malformed NULL`);
      return null;
    },

    encode() {
      return toDer(nullValue());
    },

    parse(input) {
      if (input !== undefined && input !== null) throw invalid('Input should be None', [], 'none_required');
      return null;
    },
  };
}
