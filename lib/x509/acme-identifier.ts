/**
 * The acmeIdentifier extension of a tls-alpn-01 challenge certificate (RFC 8737 §3):
 * `id-pe-acmeIdentifier OBJECT IDENTIFIER ::= { id-pe 31 }`, whose extnValue is the DER of
 * `Authorization ::= OCTET STRING (SIZE (32))` — the SHA-256 digest of the challenge's key
 * authorization.
 *
 * It is not a codec of the extension registry (extensions/index.ts): it lives only in the throwaway
 * certificate an ACME client presents during validation, never in one this CA issues or the API
 * reports, where it stays an `unknown` extension. This file reads and writes its value.
 */
import { octets, parseDer, readOctets, toDer } from './asn1';
import { invalid, parseError } from './errors';
import type { Extension } from './types';
import type { UnknownExtensionValue } from './extensions/index';

export const ACME_IDENTIFIER_OID = '1.3.6.1.5.5.7.1.31';

/** SHA-256 (RFC 8737 §3). */
export const ACME_IDENTIFIER_DIGEST_LENGTH = 32;

/** The extension as found in a certificate: its critical flag and the digest it carries. */
export interface AcmeIdentifierExtension {
  critical: boolean;
  digest: Buffer;
}

/** extnValue bytes for a digest: the DER of `Authorization ::= OCTET STRING (SIZE (32))`. */
export function encodeAcmeIdentifierValue(digest: Uint8Array): Buffer {
  if (digest.length !== ACME_IDENTIFIER_DIGEST_LENGTH) {
    throw invalid(`acmeIdentifier: the digest must be ${ACME_IDENTIFIER_DIGEST_LENGTH} bytes, not ${digest.length}`);
  }
  return toDer(octets(digest));
}

/** The digest inside an extnValue; anything but one DER OCTET STRING of 32 bytes is a parse error. */
export function decodeAcmeIdentifierValue(extnValue: Buffer): Buffer {
  const digest = readOctets(parseDer(extnValue, 'acmeIdentifier'), 'acmeIdentifier');
  if (digest.length !== ACME_IDENTIFIER_DIGEST_LENGTH) {
    throw parseError(`acmeIdentifier: expected a ${ACME_IDENTIFIER_DIGEST_LENGTH}-byte digest, got ${digest.length} bytes`);
  }
  return digest;
}

/**
 * The acmeIdentifier extension among a certificate's extensions (`ParsedCertificate.extensions`,
 * where it is `unknown`), or null when there is none. A malformed value is a parse error.
 */
export function acmeIdentifierExtension(extensions: readonly Extension[]): AcmeIdentifierExtension | null {
  for (const ext of extensions) {
    if (ext.type !== 'unknown') continue;
    const value = ext.value as UnknownExtensionValue;
    if (value.oid !== ACME_IDENTIFIER_OID) continue;
    return { critical: ext.critical, digest: decodeAcmeIdentifierValue(Buffer.from(value.value, 'base64')) };
  }
  return null;
}
