/**
 * SubjectKeyIdentifier (RFC 5280 §4.2.1.2): OCTET STRING ⇄ base64 of the identifier bytes (docs/COMPATIBILITY.md §2).
 */
import { octets, parseDer, readOctets, toDer } from '../asn1';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { present, requireBase64 } from '../json-input';

export const subjectKeyIdentifierCodec: ExtensionCodec<string> = {
  type: 'subject_key_identifier',
  oid: EXTENSION_OIDS.subject_key_identifier,
  defaultCritical: false,
  requiredCritical: false,
  configurable: false,

  decode(der) {
    return readOctets(parseDer(der, 'SubjectKeyIdentifier'), 'SubjectKeyIdentifier').toString('base64');
  },

  encode(value) {
    return toDer(octets(Buffer.from(value, 'base64')));
  },

  /** Normalises to canonical base64 (line breaks removed). */
  parse(input) {
    return requireBase64(present(input)).toString('base64');
  },
};
