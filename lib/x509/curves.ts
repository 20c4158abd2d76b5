/**
 * Named elliptic curves, one table: the curves the API offers for new keys, each with its OID
 * (RFC 5480 §2.1.1.1), field size, OpenSSL/Node name and JWK name (RFC 7518 §6.2.1.1), plus the curves
 * we can read in certificates but do not offer. The API's curve names (`EllipticCurveName`) are the
 * keys of this table, so a curve is added in exactly one place.
 */

export interface OfferedCurve {
  oid: string;
  /** Field size in bits (what a key's size is reported as). */
  bits: number;
  /** OpenSSL's name, for key generation. */
  nodeName: string;
  /** JWK `crv` and bytes per coordinate (for importing a public key as JWK). */
  jwk: { crv: string; bytes: number };
}

/** The curves the API offers for new keys, in the order help texts list them. */
export const OFFERED_CURVES = {
  secp256r1: { oid: '1.2.840.10045.3.1.7', bits: 256, nodeName: 'prime256v1', jwk: { crv: 'P-256', bytes: 32 } },
  secp384r1: { oid: '1.3.132.0.34', bits: 384, nodeName: 'secp384r1', jwk: { crv: 'P-384', bytes: 48 } },
  secp521r1: { oid: '1.3.132.0.35', bits: 521, nodeName: 'secp521r1', jwk: { crv: 'P-521', bytes: 66 } },
} as const satisfies Record<string, OfferedCurve>;

/** The API's names of elliptic curves (re-exported by types.ts, where the other API shapes live). */
export type EllipticCurveName = keyof typeof OFFERED_CURVES;

export const OFFERED_CURVE_NAMES = Object.keys(OFFERED_CURVES) as EllipticCurveName[];

export interface CurveInfo {
  /** The API's name, for the curves it offers. */
  name?: EllipticCurveName;
  /** Field size in bits (what a key's size is reported as). */
  bits: number;
}

/** Every named curve we recognise in a certificate, by OID. */
export const CURVES_BY_OID: Readonly<Record<string, CurveInfo>> = {
  ...Object.fromEntries(OFFERED_CURVE_NAMES.map((name) => [OFFERED_CURVES[name].oid, { name, bits: OFFERED_CURVES[name].bits }])),
  // Readable but not offered by the API:
  '1.3.132.0.10': { bits: 256 }, // secp256k1
  '1.2.840.10045.3.1.1': { bits: 192 }, // secp192r1
  '1.3.132.0.33': { bits: 224 }, // secp224r1
  '1.3.36.3.3.2.8.1.1.7': { bits: 256 }, // brainpoolP256r1
  '1.3.36.3.3.2.8.1.1.11': { bits: 384 }, // brainpoolP384r1
  '1.3.36.3.3.2.8.1.1.13': { bits: 512 }, // brainpoolP512r1
};

/** The offered curve with this OID, if any. */
export function offeredCurveByOid(oid: string): OfferedCurve | undefined {
  return OFFERED_CURVE_NAMES.map((name) => OFFERED_CURVES[name]).find((c) => c.oid === oid);
}
