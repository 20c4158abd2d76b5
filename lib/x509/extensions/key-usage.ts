/**
 * KeyUsage (RFC 5280 §4.2.1.3): a named BIT STRING ⇄ an array of usage names (docs/COMPATIBILITY.md §2).
 *
 * DER for a named bit list drops trailing zero bits, and the unused bits of the last byte are zero, so
 * the encoding is a pure function of the set of usages. Read from a certificate, names come in the
 * reference's canonical order; a parsed (configured) list keeps its order after alias mapping.
 */
import { bitString, parseDer, readBitString, toDer } from '../asn1';
import { invalid, parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { parseNonEmptySet, present, requireLiteral } from '../json-input';

export type KeyUsageName =
  | 'crl_sign'
  | 'data_encipherment'
  | 'decipher_only'
  | 'digital_signature'
  | 'encipher_only'
  | 'key_agreement'
  | 'key_cert_sign'
  | 'key_encipherment'
  | 'content_commitment';

/** The reference's canonical (output) order. */
export const KEY_USAGE_NAMES: readonly KeyUsageName[] = [
  'crl_sign',
  'data_encipherment',
  'decipher_only',
  'digital_signature',
  'encipher_only',
  'key_agreement',
  'key_cert_sign',
  'key_encipherment',
  'content_commitment',
];

/** Bit numbers of RFC 5280's KeyUsage. */
const KEY_USAGE_BITS: Readonly<Record<KeyUsageName, number>> = {
  digital_signature: 0,
  content_commitment: 1,
  key_encipherment: 2,
  data_encipherment: 3,
  key_agreement: 4,
  key_cert_sign: 5,
  crl_sign: 6,
  encipher_only: 7,
  decipher_only: 8,
};

/** RFC 5280 names accepted on input. */
export const KEY_USAGE_ALIASES: Readonly<Record<string, KeyUsageName>> = {
  cRLSign: 'crl_sign',
  dataEncipherment: 'data_encipherment',
  decipherOnly: 'decipher_only',
  digitalSignature: 'digital_signature',
  encipherOnly: 'encipher_only',
  keyAgreement: 'key_agreement',
  keyCertSign: 'key_cert_sign',
  keyEncipherment: 'key_encipherment',
  nonRepudiation: 'content_commitment',
};

function checkKeyAgreement(usages: readonly KeyUsageName[]): void {
  if (!usages.includes('key_agreement') && (usages.includes('encipher_only') || usages.includes('decipher_only'))) {
    throw invalid('encipher_only and decipher_only can only be set when key_agreement is set');
  }
}

export const keyUsageCodec: ExtensionCodec<KeyUsageName[]> = {
  type: 'key_usage',
  oid: EXTENSION_OIDS.key_usage,
  defaultCritical: true,
  requiredCritical: null,
  configurable: true,

  decode(der) {
    const { bytes, unusedBits } = readBitString(parseDer(der, 'KeyUsage'), 'KeyUsage');
    const isSet = (bit: number) => bit >> 3 < bytes.length && (bytes[bit >> 3] & (0x80 >> (bit & 7))) !== 0;
    const highest = bytes.length * 8 - unusedBits;
    for (let bit = 9; bit < highest; bit++) if (isSet(bit)) throw parseError(`KeyUsage: unknown bit ${bit}`);
    const usages = KEY_USAGE_NAMES.filter((name) => isSet(KEY_USAGE_BITS[name]));
    if (usages.length === 0) throw parseError('KeyUsage: no usage is set');
    // cryptography refuses to report encipher/decipher_only without key_agreement; so does the model.
    if (!usages.includes('key_agreement') && (isSet(7) || isSet(8))) {
      throw parseError('KeyUsage: encipher_only/decipher_only without key_agreement');
    }
    return usages;
  },

  encode(usages) {
    const bits = usages.map((u) => KEY_USAGE_BITS[u]);
    const highest = Math.max(...bits);
    const bytes = Buffer.alloc((highest >> 3) + 1);
    for (const bit of bits) bytes[bit >> 3] |= 0x80 >> (bit & 7);
    return toDer(bitString(bytes, 7 - (highest & 7)));
  },

  parse(input) {
    const usages = parseNonEmptySet(present(input), (v) =>
      requireLiteral(typeof v === 'string' && Object.hasOwn(KEY_USAGE_ALIASES, v) ? KEY_USAGE_ALIASES[v] : v, KEY_USAGE_NAMES),
    );
    checkKeyAgreement(usages);
    return usages;
  },
};
