/**
 * A degenerate CMS SignedData, "certs-only" (RFC 5652 §5; RFC 7030 §4.1.3 and §4.2.3 for EST): no
 * content, no signers, a bag of certificates (and, for a SCEP GetCRL reply, CRLs: RFC 8894 §3.3.2).
 * It is how EST hands out the CA chain and an issued certificate, and what `openssl crl2pkcs7 -nocrl`
 * writes.
 *
 * The certificates go in byte for byte (never decoded and re-encoded) and in the order given, not in
 * the DER order of a SET: clients take the first one as the issued certificate.
 */
import { readTlv } from './tlv';
import { oidToContent } from './oid-der';
import { tlv } from './der-writer';

const ID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const ID_DATA = '1.2.840.113549.1.7.1';

const SEQUENCE = 0x30;
const SET = 0x31;
const OID = 0x06;
const INTEGER = 0x02;
const CONTEXT_0 = 0xa0;
const CONTEXT_1 = 0xa1;

/** Each value must be exactly one DER SEQUENCE: the bag is opaque to its readers' error messages. */
function checkOneSequence(values: readonly Buffer[], what: 'certificate' | 'CRL'): void {
  for (const der of values) {
    const t = readTlv(der, 0, der.length, what);
    if (der[0] !== SEQUENCE || t.end !== der.length) throw new Error(`certsOnlyPkcs7: not one DER ${what}`);
  }
}

/**
 * ContentInfo { id-signedData, [0] SignedData { v1, {}, { id-data }, [0] certificates, [1] crls, {} } },
 * DER. `crls [1] IMPLICIT` is written only when `crls` has entries, so a bag without CRLs is the same
 * bytes as always.
 */
export function certsOnlyPkcs7(certificates: readonly Buffer[], crls: readonly Buffer[] = []): Buffer {
  checkOneSequence(certificates, 'certificate');
  checkOneSequence(crls, 'CRL');
  const signedData = tlv(
    SEQUENCE,
    tlv(INTEGER, Buffer.from([1])), // version 1: no attribute certificates, no other revocation formats (RFC 5652 §5.1)
    tlv(SET), // digestAlgorithms: no signers
    tlv(SEQUENCE, tlv(OID, oidToContent(ID_DATA))), // encapContentInfo without eContent
    tlv(CONTEXT_0, ...certificates), // certificates [0] IMPLICIT, in the order given
    ...(crls.length > 0 ? [tlv(CONTEXT_1, ...crls)] : []), // crls [1] IMPLICIT RevocationInfoChoices
    tlv(SET), // signerInfos
  );
  return tlv(SEQUENCE, tlv(OID, oidToContent(ID_SIGNED_DATA)), tlv(CONTEXT_0, signedData));
}
