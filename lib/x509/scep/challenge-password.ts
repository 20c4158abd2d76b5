/**
 * The challengePassword attribute of a PKCS#10 (RFC 2985 §5.4.1, RFC 2986 §4.1): how a SCEP PKCSReq
 * authenticates (RFC 8894 §2.2). A DirectoryString: micromdm sends a PrintableString, strongSwan a
 * UTF8String; IA5String, TeletexString (read as Latin-1) and BMPString (UTF-16BE) are read too. The
 * CSR's signature covers it; it is never copied into a certificate.
 */
import { parseError } from '../errors';
import { readSignedEnvelope, readTlvChildren } from '../tlv';
import { contentOf } from './cms-reader';
import { readOidTlv } from './cms-reader';
import { OID_CHALLENGE_PASSWORD } from './oids';

const CONTEXT_0_CONSTRUCTED = 0xa0;
const STRING_TAGS: Record<number, (bytes: Buffer) => string> = {
  0x0c: (b) => b.toString('utf8'), // UTF8String
  0x13: (b) => b.toString('latin1'), // PrintableString
  0x14: (b) => b.toString('latin1'), // TeletexString
  0x16: (b) => b.toString('latin1'), // IA5String
  0x1e: (b) => Buffer.from(b).swap16().toString('utf16le'), // BMPString
};

/** The challenge password of the DER PKCS#10 `csrDer`, or undefined when it has none. */
export function challengePassword(csrDer: Buffer): string | undefined {
  const [info] = readSignedEnvelope(csrDer, 'CSR');
  const fields = readTlvChildren(csrDer, info, 'CertificationRequestInfo');
  const attributes = fields[3];
  if (!attributes || attributes.tag !== CONTEXT_0_CONSTRUCTED) return undefined;
  for (const attribute of readTlvChildren(csrDer, attributes, 'CSR attributes')) {
    const [type, values] = readTlvChildren(csrDer, attribute, 'CSR attribute');
    if (!type || !values || readOidTlv(csrDer, type, 'CSR attribute type') !== OID_CHALLENGE_PASSWORD) continue;
    const [value] = readTlvChildren(csrDer, values, 'challengePassword');
    const decode = value ? STRING_TAGS[value.tag] : undefined;
    if (!decode || (value.tag === 0x1e && (value.end - value.contentStart) % 2 !== 0))
      throw parseError('challengePassword: not a DirectoryString');
    return decode(contentOf(csrDer, value));
  }
  return undefined;
}
