/**
 * OCSP response builder (RFC 6960 §4.2; the RFC 5019 profile): a BasicOCSPResponse signed by the
 * responder, or an unsuccessful response carrying only a status.
 *
 *   OCSPResponse      ::= SEQUENCE { responseStatus ENUMERATED, responseBytes [0] EXPLICIT ResponseBytes OPTIONAL }
 *   ResponseBytes     ::= SEQUENCE { responseType OID (id-pkix-ocsp-basic), response OCTET STRING }
 *   BasicOCSPResponse ::= SEQUENCE { tbsResponseData, signatureAlgorithm, signature BIT STRING,
 *                                    certs [0] EXPLICIT SEQUENCE OF Certificate OPTIONAL }
 *   ResponseData      ::= SEQUENCE { responderID [2] KeyHash, producedAt GeneralizedTime,
 *                                    responses SEQUENCE OF SingleResponse, responseExtensions [1] EXPLICIT Extensions OPTIONAL }
 *   SingleResponse    ::= SEQUENCE { certID, certStatus, thisUpdate, nextUpdate [0] EXPLICIT OPTIONAL }
 */
import { createHash } from 'crypto';
import { encodeSignatureAlgorithm, signatureAlgorithmFor } from '../algorithms';
import { readTlv, readTlvChildren, toDer } from '../asn1';
import type { SignatureOptions, Signer } from '../signer';
import { bitString, enumerated, explicit, extension, generalizedTime, octets, oid, seq, tlv } from './der';
import { OID_OCSP_NONCE } from './ocsp-request';
import { crlReasonCode } from './reasons';

export const OID_OCSP_BASIC = '1.3.6.1.5.5.7.48.1.1';

/** responseStatus values (§4.2.1). */
export const OCSP_RESPONSE_STATUS = {
  successful: 0,
  malformedRequest: 1,
  internalError: 2,
  tryLater: 3,
  sigRequired: 5,
  unauthorized: 6,
} as const;

export type OcspErrorStatus = Exclude<keyof typeof OCSP_RESPONSE_STATUS, 'successful'>;

export type CertStatus = { status: 'good' } | { status: 'revoked'; revocationTime: Date; reason: string } | { status: 'unknown' };

export interface SingleResponse {
  /** The CertID as the request sent it. */
  certIdDer: Buffer;
  certStatus: CertStatus;
  thisUpdate: Date;
  nextUpdate: Date;
}

export interface OcspResponseTemplate {
  /** The responder's certificate (included in `certs` so clients can check the delegation). */
  responderCertificateDer: Buffer;
  /** SubjectPublicKeyInfo DER of the responder's key (for the KeyHash responderID). */
  responderPublicKeyDer: Buffer;
  producedAt: Date;
  responses: readonly SingleResponse[];
  nonce: { value: Buffer; critical: boolean } | null;
  signature: SignatureOptions;
}

/** An unsuccessful response: the status alone (§4.2.1: no responseBytes). */
export function ocspErrorResponse(status: OcspErrorStatus): Buffer {
  return seq(enumerated(OCSP_RESPONSE_STATUS[status]));
}

/** KeyHash ::= SHA-1 of the subjectPublicKey BIT STRING's value (no tag, length, unused bits) — §4.2.1. */
export function keyHash(spkiDer: Buffer, hash = 'sha1'): Buffer {
  const spki = readTlv(spkiDer, 0, spkiDer.length, 'SubjectPublicKeyInfo');
  const [, key] = readTlvChildren(spkiDer, spki, 'SubjectPublicKeyInfo');
  return createHash(hash)
    .update(spkiDer.subarray(key.contentStart + 1, key.end))
    .digest();
}

function certStatusDer(s: CertStatus): Buffer {
  if (s.status === 'good') return Buffer.from([0x80, 0x00]); // [0] IMPLICIT NULL
  if (s.status === 'unknown') return Buffer.from([0x82, 0x00]); // [2] IMPLICIT NULL
  // [1] IMPLICIT RevokedInfo ::= SEQUENCE { revocationTime, revocationReason [0] EXPLICIT CRLReason OPTIONAL }
  const parts = [generalizedTime(s.revocationTime)];
  if (s.reason) parts.push(explicit(0, enumerated(crlReasonCode(s.reason))));
  return tlv(0xa1, ...parts);
}

function singleResponseDer(r: SingleResponse): Buffer {
  return seq(r.certIdDer, certStatusDer(r.certStatus), generalizedTime(r.thisUpdate), explicit(0, generalizedTime(r.nextUpdate)));
}

/** A successful, signed response. */
export async function buildOcspResponse(t: OcspResponseTemplate, signer: Signer): Promise<Buffer> {
  const parts = [
    tlv(0xa2, octets(keyHash(t.responderPublicKeyDer))),
    generalizedTime(t.producedAt),
    seq(...t.responses.map(singleResponseDer)),
  ];
  if (t.nonce) parts.push(explicit(1, seq(extension(OID_OCSP_NONCE, t.nonce.critical, octets(t.nonce.value)))));
  const tbs = seq(...parts);
  const algorithm = toDer(encodeSignatureAlgorithm(signatureAlgorithmFor(signer.keyType, t.signature)));
  const signature = await signer.sign(tbs, t.signature);
  const basic = seq(tbs, algorithm, bitString(signature), explicit(0, seq(t.responderCertificateDer)));
  return seq(enumerated(OCSP_RESPONSE_STATUS.successful), explicit(0, seq(oid(OID_OCSP_BASIC), octets(basic))));
}
