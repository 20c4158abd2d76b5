/**
 * OCSP request reader (RFC 6960 §4.1.1), strict and bounded: the body comes from anyone on the
 * network, so it is walked with the strict DER TLV reader (no recursion into unknown values, lengths
 * checked against the buffer) and every CertID is kept as the exact bytes it arrived in, because the
 * response must echo it (§4.2.1).
 *
 *   OCSPRequest ::= SEQUENCE { tbsRequest TBSRequest, optionalSignature [0] EXPLICIT Signature OPTIONAL }
 *   TBSRequest  ::= SEQUENCE { version [0] EXPLICIT DEFAULT v1, requestorName [1] EXPLICIT GeneralName OPTIONAL,
 *                              requestList SEQUENCE OF Request, requestExtensions [2] EXPLICIT Extensions OPTIONAL }
 *   Request     ::= SEQUENCE { reqCert CertID, singleRequestExtensions [0] EXPLICIT Extensions OPTIONAL }
 *   CertID      ::= SEQUENCE { hashAlgorithm AlgorithmIdentifier, issuerNameHash OCTET STRING,
 *                              issuerKeyHash OCTET STRING, serialNumber CertificateSerialNumber }
 */
import { oidFromContent, readTlv, readTlvChildren, type Tlv } from '../asn1';
import { parseError } from '../errors';
import { DER_TAG } from '../tlv';

export const OID_OCSP_NONCE = '1.3.6.1.5.5.7.48.1.2';

/** Hash algorithms a CertID may name, by OID → Node's digest name. */
export const CERT_ID_HASHES: Readonly<Record<string, string>> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** At most this many certificates per request (RFC 5019 §2.1.1 allows one; we are lenient up to here). */
export const MAX_REQUESTED_CERTIFICATES = 20;

export interface CertId {
  /** The CertID exactly as it arrived (echoed in the response). */
  der: Buffer;
  hashOid: string;
  /** Node's digest name, or null for a hash we do not support. */
  hash: string | null;
  issuerNameHash: Buffer;
  issuerKeyHash: Buffer;
  /** Upper-case hex without leading zeros, as the store keeps serials. */
  serial: string;
}

export interface OcspRequest {
  certIds: CertId[];
  /** The nonce extension's value (the OCTET STRING's content) and its criticality, to echo (RFC 8954). */
  nonce: { value: Buffer; critical: boolean } | null;
  /** A critical request extension we do not understand (→ the request cannot be answered). */
  unknownCriticalExtension: boolean;
}

const { SEQUENCE, OCTET_STRING, INTEGER, OID, BOOLEAN } = DER_TAG;

function expect(tlv: Tlv | undefined, tag: number, what: string): Tlv {
  if (!tlv || tlv.tag !== tag) throw parseError(`OCSP request: ${what} expected`);
  return tlv;
}

const content = (buf: Buffer, t: Tlv): Buffer => buf.subarray(t.contentStart, t.end);

function serialHex(bytes: Buffer): string {
  if (bytes.length === 0 || bytes.length > 64) throw parseError('OCSP request: bad serial number');
  if (bytes[0] & 0x80) throw parseError('OCSP request: negative serial number');
  const hex = bytes.toString('hex').toUpperCase().replace(/^0+/, '');
  return hex === '' ? '0' : hex;
}

function readCertId(buf: Buffer, t: Tlv): CertId {
  const [alg, nameHash, keyHash, serial, ...rest] = readTlvChildren(buf, expect(t, SEQUENCE, 'CertID'), 'CertID');
  if (rest.length) throw parseError('OCSP request: CertID has extra fields');
  const algParts = readTlvChildren(buf, expect(alg, SEQUENCE, 'hashAlgorithm'), 'hashAlgorithm');
  const hashOid = oidFromContent(content(buf, expect(algParts[0], OID, 'hash OID')), 'hash OID');
  return {
    der: Buffer.from(buf.subarray(t.start, t.end)),
    hashOid,
    hash: CERT_ID_HASHES[hashOid] ?? null,
    issuerNameHash: Buffer.from(content(buf, expect(nameHash, OCTET_STRING, 'issuerNameHash'))),
    issuerKeyHash: Buffer.from(content(buf, expect(keyHash, OCTET_STRING, 'issuerKeyHash'))),
    serial: serialHex(content(buf, expect(serial, INTEGER, 'serialNumber'))),
  };
}

/** Extensions ::= SEQUENCE OF Extension → [oid, critical, value] triples. */
function readExtensions(buf: Buffer, t: Tlv): { id: string; critical: boolean; value: Buffer }[] {
  return readTlvChildren(buf, expect(t, SEQUENCE, 'Extensions'), 'Extensions').map((ext) => {
    const parts = readTlvChildren(buf, expect(ext, SEQUENCE, 'Extension'), 'Extension');
    const id = oidFromContent(content(buf, expect(parts[0], OID, 'extnID')), 'extnID');
    let i = 1;
    let critical = false;
    if (parts[i]?.tag === BOOLEAN) {
      critical = content(buf, parts[i])[0] !== 0;
      i++;
    }
    const value = content(buf, expect(parts[i], OCTET_STRING, 'extnValue'));
    if (parts.length !== i + 1) throw parseError('OCSP request: malformed Extension');
    return { id, critical, value: Buffer.from(value) };
  });
}

/** Parse an OCSPRequest; X509Error('parse') for anything that is not one. */
export function parseOcspRequest(der: Buffer): OcspRequest {
  const top = readTlv(der, 0, der.length, 'OCSP request');
  if (top.tag !== SEQUENCE || top.end !== der.length) throw parseError('OCSP request: not a single SEQUENCE');
  const [tbs, signature, ...extra] = readTlvChildren(der, top, 'OCSP request');
  if (extra.length || (signature && signature.tag !== 0xa0)) throw parseError('OCSP request: malformed');
  const fields = readTlvChildren(der, expect(tbs, SEQUENCE, 'TBSRequest'), 'TBSRequest');
  let i = 0;
  if (fields[i]?.tag === 0xa0) i++; // version, v1 is all there is
  if (fields[i]?.tag === 0xa1) i++; // requestorName: not needed to answer
  const list = readTlvChildren(der, expect(fields[i++], SEQUENCE, 'requestList'), 'requestList');
  if (list.length === 0) throw parseError('OCSP request: empty requestList');
  if (list.length > MAX_REQUESTED_CERTIFICATES) throw parseError('OCSP request: too many certificates');
  const extensions = fields[i]?.tag === 0xa2 ? readExtensions(der, readTlvChildren(der, fields[i++], 'requestExtensions')[0]) : [];
  if (i !== fields.length) throw parseError('OCSP request: unexpected fields');

  let unknownCriticalExtension = false;
  const certIds = list.map((req) => {
    const [certId, singleExtensions, ...more] = readTlvChildren(der, expect(req, SEQUENCE, 'Request'), 'Request');
    if (more.length || (singleExtensions && singleExtensions.tag !== 0xa0)) throw parseError('OCSP request: malformed Request');
    if (singleExtensions) {
      const exts = readExtensions(der, readTlvChildren(der, singleExtensions, 'singleRequestExtensions')[0]);
      if (exts.some((e) => e.critical)) unknownCriticalExtension = true;
    }
    return readCertId(der, certId);
  });
  let nonce: OcspRequest['nonce'] = null;
  for (const ext of extensions) {
    if (ext.id === OID_OCSP_NONCE) {
      // RFC 8954 §2.1: the nonce is an OCTET STRING of 1–32 octets inside extnValue.
      const inner = readTlv(ext.value, 0, ext.value.length, 'nonce');
      if (inner.tag !== OCTET_STRING || inner.end !== ext.value.length) throw parseError('OCSP request: malformed nonce');
      nonce = { value: Buffer.from(ext.value.subarray(inner.contentStart, inner.end)), critical: ext.critical };
    } else if (ext.critical) unknownCriticalExtension = true;
  }
  return { certIds, nonce, unknownCriticalExtension };
}
