/**
 * Precertificate Poison (RFC 6962 §3.1): the extension value is an ASN.1 NULL; the API value is `null` (models.md §6.10).
 * Input may omit `value` or give null.
 */
import { nullValue, parseDer, Type, expectUniversal, toDer, contentBytes } from '../asn1';
import { invalid, parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';

export const precertPoisonCodec: ExtensionCodec<null> = {
  type: 'precert_poison',
  oid: EXTENSION_OIDS.precert_poison,
  defaultCritical: true,
  requiredCritical: true,
  configurable: true,

  decode(der) {
    const node = expectUniversal(parseDer(der, 'precert_poison'), Type.NULL, 'precert_poison');
    if (contentBytes(node, 'precert_poison').length !== 0) throw parseError('precert_poison: malformed NULL');
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
