/**
 * CRL builder (RFC 5280 §5): a v2 CertificateList signed through a `Signer`.
 *
 * Extensions: Authority Key Identifier (§5.2.1, the CA's subject key identifier), CRL Number
 * (§5.2.3), and — when the CRL covers one kind of certificate — a critical Issuing Distribution Point
 * with `onlyContainsUserCerts` or `onlyContainsCACerts` (§5.2.5). Entries carry a reason code
 * (§5.3.1; omitted for `unspecified`, as §5.3.1 recommends) and an invalidity date (§5.3.2) when the
 * compromise time is known.
 */
import { encodeSignatureAlgorithm, signatureAlgorithmFor } from '../algorithms';
import { toDer } from '../asn1';
import { pemEncode } from '../pem';
import type { SignatureOptions, Signer } from '../signer';
import { bitString, enumerated, explicit, extension, generalizedTime, integer, seq, seqOf, time, tlv } from './der';
import { crlReasonCode } from './reasons';

export const OID_AUTHORITY_KEY_IDENTIFIER = '2.5.29.35';
export const OID_CRL_NUMBER = '2.5.29.20';
export const OID_ISSUING_DISTRIBUTION_POINT = '2.5.29.28';
export const OID_CRL_REASON = '2.5.29.21';
export const OID_INVALIDITY_DATE = '2.5.29.24';

/** Which certificates a CRL covers: end entities, CAs, or (null) all of them. */
export type CrlScope = 'user' | 'ca' | null;

export interface CrlEntry {
  /** The revoked certificate's serial number. */
  serialNumber: bigint;
  revocationDate: Date;
  /** snake_case reason name (RFC 5280 §5.3.1); '' or 'unspecified' writes no reason code. */
  reason: string;
  /** When the key is known or suspected to have been compromised (§5.3.2); null = unknown. */
  invalidityDate: Date | null;
}

export interface CrlTemplate {
  /** The CA's subject Name DER, copied byte for byte (it must equal the certificates' issuer). */
  issuerDer: Buffer;
  /** The CA's subject key identifier (the AKI of everything it signs). */
  authorityKeyIdentifier: Buffer;
  crlNumber: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
  scope: CrlScope;
  entries: readonly CrlEntry[];
  signature: SignatureOptions;
}

function entryDer(e: CrlEntry): Buffer {
  const extensions: Buffer[] = [];
  const code = crlReasonCode(e.reason);
  if (code !== 0) extensions.push(extension(OID_CRL_REASON, false, enumerated(code)));
  if (e.invalidityDate) extensions.push(extension(OID_INVALIDITY_DATE, false, generalizedTime(e.invalidityDate)));
  const parts = [integer(e.serialNumber), time(e.revocationDate)];
  if (extensions.length) parts.push(seq(...extensions));
  return seq(...parts);
}

function crlExtensions(t: CrlTemplate): Buffer {
  const list = [
    extension(OID_AUTHORITY_KEY_IDENTIFIER, false, seq(tlv(0x80, t.authorityKeyIdentifier))),
    extension(OID_CRL_NUMBER, false, integer(t.crlNumber)),
  ];
  // IssuingDistributionPoint ::= SEQUENCE { ..., onlyContainsUserCerts [1] IMPLICIT BOOLEAN, onlyContainsCACerts [2] ... }
  if (t.scope === 'user') list.push(extension(OID_ISSUING_DISTRIBUTION_POINT, true, seq(tlv(0x81, Buffer.from([0xff])))));
  if (t.scope === 'ca') list.push(extension(OID_ISSUING_DISTRIBUTION_POINT, true, seq(tlv(0x82, Buffer.from([0xff])))));
  return explicit(0, seq(...list));
}

/** TBSCertList (§5.1.2), with the given signature AlgorithmIdentifier DER. */
export function buildTbsCertList(t: CrlTemplate, algorithmDer: Buffer): Buffer {
  const parts = [integer(1), algorithmDer, t.issuerDer, time(t.thisUpdate), time(t.nextUpdate)];
  if (t.entries.length) parts.push(seqOf(t.entries.map(entryDer)));
  parts.push(crlExtensions(t));
  return seq(...parts);
}

/** The signed CRL, DER. */
export async function buildCrl(t: CrlTemplate, signer: Signer): Promise<Buffer> {
  const algorithm = toDer(encodeSignatureAlgorithm(signatureAlgorithmFor(signer.keyType, t.signature)));
  const tbs = buildTbsCertList(t, algorithm);
  const signature = await signer.sign(tbs, t.signature);
  return seq(tbs, algorithm, bitString(signature));
}

/** PEM armour of a CRL (RFC 7468 §6: `X509 CRL`). */
export function crlToPem(der: Buffer): string {
  return pemEncode(der, 'X509 CRL');
}
