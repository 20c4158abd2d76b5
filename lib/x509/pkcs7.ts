/**
 * A degenerate CMS SignedData, "certs-only" (RFC 5652 §5; RFC 7030 §4.1.3 and §4.2.3 for EST): no
 * content, no signers, a bag of certificates. It is how EST hands out the CA chain and an issued
 * certificate, and what `openssl crl2pkcs7 -nocrl` writes.
 *
 * The certificates go in byte for byte (never decoded and re-encoded) and in the order given, not in
 * the DER order of a SET: clients take the first one as the issued certificate.
 */
import { readTlv } from './tlv';
import { oidToContent } from './oid-der';

const ID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const ID_DATA = '1.2.840.113549.1.7.1';

/** One DER TLV: the tag byte, the minimal definite length (X.690 §10.1), the content. */
function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const SEQUENCE = 0x30;
const SET = 0x31;
const OID = 0x06;
const INTEGER = 0x02;
const CONTEXT_0 = 0xa0;

/** ContentInfo { id-signedData, [0] SignedData { v1, {}, { id-data }, [0] certificates, {} } }, DER. */
export function certsOnlyPkcs7(certificates: readonly Buffer[]): Buffer {
  for (const der of certificates) {
    // Each must be exactly one DER SEQUENCE: the bag is opaque to its readers' error messages.
    const t = readTlv(der, 0, der.length, 'certificate');
    if (der[0] !== SEQUENCE || t.end !== der.length) throw new Error('certsOnlyPkcs7: not one DER certificate');
  }
  const signedData = tlv(
    SEQUENCE,
    tlv(INTEGER, Buffer.from([1])), // version 1: no attribute certificates, no other revocation formats (RFC 5652 §5.1)
    tlv(SET), // digestAlgorithms: no signers
    tlv(SEQUENCE, tlv(OID, oidToContent(ID_DATA))), // encapContentInfo without eContent
    tlv(CONTEXT_0, ...certificates), // certificates [0] IMPLICIT, in the order given
    tlv(SET), // signerInfos
  );
  return tlv(SEQUENCE, tlv(OID, oidToContent(ID_SIGNED_DATA)), tlv(CONTEXT_0, signedData));
}
