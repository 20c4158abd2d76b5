/**
 * EST's CSR attributes (RFC 7030 §4.5.2): what a server asks a client to put in its PKCS#10.
 *
 *     CsrAttrs ::= SEQUENCE SIZE (0..MAX) OF AttrOrOID
 *     AttrOrOID ::= CHOICE { oid OBJECT IDENTIFIER, attribute Attribute }
 *
 * Only the OBJECT IDENTIFIER choice is written: the server names what it wants, not its value.
 */
import { derOid, tlv } from './der-writer';
import { OID_CHALLENGE_PASSWORD } from './scep/oids';

/** The DER of a CsrAttrs naming `oids` (dotted), in order. */
export function csrAttrs(oids: readonly string[]): Buffer {
  return tlv(0x30, ...oids.map(derOid));
}

/** The CsrAttrs asking for a challengePassword (PKCS#9, RFC 2985 §5.4.1): an endpoint that checks one. */
export function challengePasswordCsrAttrs(): Buffer {
  return csrAttrs([OID_CHALLENGE_PASSWORD]);
}
