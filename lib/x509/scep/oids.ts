/**
 * Object identifiers of SCEP messages (RFC 8894 §3): the CMS content types they nest (RFC 5652 §4,
 * §5, §6), the signed attributes SCEP adds (RFC 8894 §3.2.1, under VeriSign's arc 2.16.840.1.113733.1.9),
 * and the digest, signature and content-encryption algorithms real clients use.
 */

// CMS content types (RFC 5652 §4, §5.1, §6.1).
export const OID_DATA = '1.2.840.113549.1.7.1';
export const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
export const OID_ENVELOPED_DATA = '1.2.840.113549.1.7.3';

// CMS signed attributes (RFC 5652 §11) and the PKCS#9 attribute of a PKCS#10 (RFC 2985 §5.4.1).
export const OID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
export const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
export const OID_CHALLENGE_PASSWORD = '1.2.840.113549.1.9.7';

// SCEP signed attributes (RFC 8894 §3.2.1).
export const OID_SCEP_MESSAGE_TYPE = '2.16.840.1.113733.1.9.2';
export const OID_SCEP_PKI_STATUS = '2.16.840.1.113733.1.9.3';
export const OID_SCEP_FAIL_INFO = '2.16.840.1.113733.1.9.4';
export const OID_SCEP_SENDER_NONCE = '2.16.840.1.113733.1.9.5';
export const OID_SCEP_RECIPIENT_NONCE = '2.16.840.1.113733.1.9.6';
export const OID_SCEP_TRANSACTION_ID = '2.16.840.1.113733.1.9.7';
export const OID_SCEP_FAIL_INFO_TEXT = '2.16.840.1.113733.1.9.24';

// Digest algorithms (RFC 3370 §2.1, RFC 5754 §2).
export const OID_SHA1 = '1.3.14.3.2.26';
export const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
export const OID_SHA384 = '2.16.840.1.101.3.4.2.2';
export const OID_SHA512 = '2.16.840.1.101.3.4.2.3';

// RSA (RFC 8017 Appendix C; RFC 3370 §3.2, §4.2.1; RFC 4055 §5).
export const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
export const OID_SHA1_WITH_RSA = '1.2.840.113549.1.1.5';
export const OID_SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
export const OID_SHA384_WITH_RSA = '1.2.840.113549.1.1.12';
export const OID_SHA512_WITH_RSA = '1.2.840.113549.1.1.13';
export const OID_SHA224_WITH_RSA = '1.2.840.113549.1.1.14';

// Content-encryption algorithms (RFC 8018 Appendix B.2.1 for DES-CBC; RFC 3370 §5.1; RFC 3565 §4.1).
export const OID_DES_CBC = '1.3.14.3.2.7';
export const OID_DES_EDE3_CBC = '1.2.840.113549.3.7';
export const OID_AES128_CBC = '2.16.840.1.101.3.4.1.2';
export const OID_AES192_CBC = '2.16.840.1.101.3.4.1.22';
export const OID_AES256_CBC = '2.16.840.1.101.3.4.1.42';
