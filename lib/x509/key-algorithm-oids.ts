/**
 * OIDs of public-key algorithms (RFC 3279, RFC 4055, RFC 5480, RFC 8410). Their own module because
 * both sides use them — keys (public-key.ts, public-key-object.ts) and signatures (algorithms.ts) —
 * and neither side should import the other for a constant.
 */
export const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
/** id-RSASSA-PSS: a key restricted to PSS, and the PSS signature algorithm (RFC 4055). */
export const OID_RSASSA_PSS = '1.2.840.113549.1.1.10';
export const OID_EC_PUBLIC_KEY = '1.2.840.10045.2.1';
export const OID_DSA = '1.2.840.10040.4.1';
/** Ed25519 / Ed448: the key and the signature algorithm are one OID (RFC 8410). */
export const OID_ED25519 = '1.3.101.112';
export const OID_ED448 = '1.3.101.113';
