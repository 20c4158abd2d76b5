/**
 * OCSPNoCheck (RFC 6960 §4.2.2.2.1): the extension value is an ASN.1 NULL; the API value is `null` (models.md §6.10).
 * Input may omit `value` or give null.
 */
import { nullValue, parseDer, Type, expectUniversal, toDer, contentBytes } from '../asn1';
import { invalid, parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';

export const ocspNoCheckCodec: ExtensionCodec<null> = {
  type: 'ocsp_no_check',
  oid: EXTENSION_OIDS.ocsp_no_check,
  defaultCritical: false,
  requiredCritical: null,
  configurable: true,

  decode(der) {
    const node = expectUniversal(parseDer(der, 'ocsp_no_check'), Type.NULL, 'ocsp_no_check');
    if (contentBytes(node, 'ocsp_no_check').length !== 0) throw parseError('ocsp_no_check: malformed NULL');
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
