/**
 * The decrypted contents of SCEP's query messages (RFC 8894 §3.3.3, §3.3.4): CertPoll's
 * IssuerAndSubject and GetCert's and GetCRL's IssuerAndSerialNumber (RFC 5652 §10.2.4), with the
 * names as DER slices (compared as bytes) and the serial as the API writes it.
 */
import { parseError } from '../errors';
import { DER_TAG, expectTag, readTlv, readTlvChildren } from '../tlv';
import { contentOf, tlvBytes } from './cms-reader';

/** One SEQUENCE of exactly two fields filling `der`. */
function pair(der: Buffer, what: string) {
  const top = expectTag(readTlv(der, 0, der.length, what), DER_TAG.SEQUENCE, what);
  if (top.end !== der.length) throw parseError(`${what}: trailing bytes`);
  const parts = readTlvChildren(der, top, what);
  if (parts.length !== 2) throw parseError(`${what}: malformed`);
  return parts;
}

/** `IssuerAndSubject ::= SEQUENCE { issuer Name, subject Name }`. */
export function readIssuerAndSubject(der: Buffer): { issuer: Buffer; subject: Buffer } {
  const [issuer, subject] = pair(der, 'IssuerAndSubject');
  return {
    issuer: Buffer.from(tlvBytes(der, expectTag(issuer, DER_TAG.SEQUENCE, 'IssuerAndSubject issuer'))),
    subject: Buffer.from(tlvBytes(der, expectTag(subject, DER_TAG.SEQUENCE, 'IssuerAndSubject subject'))),
  };
}

/** `IssuerAndSerialNumber ::= SEQUENCE { issuer Name, serialNumber INTEGER }`; the serial in upper-case hex without leading zeros. */
export function readIssuerAndSerial(der: Buffer): { issuer: Buffer; serial: string } {
  const [issuer, serial] = pair(der, 'IssuerAndSerialNumber');
  const value = contentOf(der, expectTag(serial, DER_TAG.INTEGER, 'IssuerAndSerialNumber serialNumber'));
  if (value.length === 0 || value.length > 40 || value[0] & 0x80)
    throw parseError('IssuerAndSerialNumber serialNumber: not a certificate serial');
  const hex = value.toString('hex').toUpperCase().replace(/^0+/, '');
  return { issuer: Buffer.from(tlvBytes(der, expectTag(issuer, DER_TAG.SEQUENCE, 'IssuerAndSerialNumber issuer'))), serial: hex || '0' };
}
