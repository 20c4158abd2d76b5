/**
 * The certificate engine's public entry point (`express-ca-api/x509`): parse and build certificates
 * and CSRs, keys and signers, names, the extension registry, PEM and fingerprints. Pure: no I/O.
 */
export * from './types';
export { X509Error, type X509ErrorCode, type ValidationIssue } from './errors';
export { parseCertificate, verifyCertificateSignature, type ParsedCertificate } from './certificate';
export { parseCsr, parseVerifiedCsr, type ParsedCsr } from './csr';
export { buildCertificate, buildTbsCertificate, type CertificateTemplate } from './builder';
export { generatePrivateKey, importPrivateKey, exportPrivateKey, publicKeyDer, keyTypeOf, type ExportOptions } from './keys';
export type { Signer, SignatureOptions } from './signer';
export { keyObjectSigner, type KeyObjectSignerOptions } from './key-signer';
export { parseName, parseNameAttribute, parseNameOid, encodeName, decodeName, firstCommonName, nameOidLongName } from './name';
export { parseGeneralName, parseGeneralNames } from './general-name';
export {
  EXTENSION_CODECS,
  CONFIGURABLE_EXTENSION_TYPES,
  codecByType,
  codecByOid,
  parseExtension,
  decodeExtension,
  encodeExtension,
  encodeExtensionValue,
  type ExtensionCodec,
  type ParseExtensionOptions,
} from './extensions';
export { pemEncode, pemDecode, derFromInput } from './pem';
export { fingerprints, fingerprint, colonHex } from './fingerprints';
export { normaliseSerial, serialToHex, serialToColons } from './serial-format';
export { formatUtc, formatDuration, parseDateTime } from './datetime';
