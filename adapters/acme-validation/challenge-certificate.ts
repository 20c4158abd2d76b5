/**
 * The checks of RFC 8737 §3 on the certificate a tls-alpn-01 server presents: a subjectAltName with
 * exactly the one identifier being validated (a dNSName; an iPAddress for an IP identifier, RFC 8738
 * §6), and a critical acmeIdentifier extension holding SHA-256 of the key authorization. Read with
 * the engine's own parser (lib/x509), which also refuses what is not strict DER.
 */
import { createHash } from 'crypto';
import type { AcmeIdentifier } from '../../lib/ports/acme';
import { acmeIdentifierExtension, ACME_IDENTIFIER_OID, type AcmeIdentifierExtension } from '../../lib/x509/acme-identifier';
import { parseCertificate, type ParsedCertificate } from '../../lib/x509/certificate';
import { canonicalIp } from '../../lib/x509/ip-address';
import { EXTENSION_OIDS } from '../../lib/x509/oids';
import type { GeneralName } from '../../lib/x509/types';
import { failure, quoted, type ValidationFailure } from './outcome';

/** Null when the certificate proves control of `identifier`; otherwise why not (never retryable: it is the server's answer). */
export function checkChallengeCertificate(
  der: Buffer | null,
  identifier: AcmeIdentifier,
  keyAuthorization: string,
): ValidationFailure | null {
  if (!der) return failure('tls', 'the server presented no certificate', false);
  let cert: ParsedCertificate;
  try {
    cert = parseCertificate(der);
  } catch (e) {
    return failure('tls', `the presented certificate cannot be read: ${(e as Error).message}`, false);
  }
  const wrong = (why: string): ValidationFailure => failure('incorrectResponse', `the presented certificate ${why}`, false);

  const san = cert.extensions.find((ext) => ext.type === 'subject_alternative_name');
  if (!san) {
    const unreadable = cert.extensions.some(
      (ext) => (ext.value as { oid?: string } | null)?.oid === EXTENSION_OIDS.subject_alternative_name,
    );
    return wrong(unreadable ? 'has a subjectAltName that cannot be read' : 'has no subjectAltName');
  }
  const names = san.value as GeneralName[];
  if (names.length !== 1 || !namesIdentifier(names[0], identifier)) {
    const found = names.slice(0, 5).map((n) => `${n.type}:${typeof n.value === 'string' ? n.value : '...'}`);
    const expected = `${identifier.type === 'ip' ? 'IP' : 'DNS'}:${identifier.value}`;
    return wrong(`must name exactly ${quoted(expected)} in its subjectAltName, it names ${quoted(found.join(', '), 200)}`);
  }

  let ext: AcmeIdentifierExtension | null;
  try {
    ext = acmeIdentifierExtension(cert.extensions);
  } catch (e) {
    return wrong(`has a malformed acmeIdentifier extension: ${(e as Error).message}`);
  }
  if (!ext) return wrong(`has no acmeIdentifier extension (${ACME_IDENTIFIER_OID})`);
  if (!ext.critical) return wrong('has an acmeIdentifier extension that is not critical (RFC 8737 §3 requires it to be)');
  const expected = createHash('sha256').update(keyAuthorization, 'utf8').digest();
  if (!ext.digest.equals(expected)) {
    return wrong(
      `has an acmeIdentifier of ${ext.digest.toString('hex')}, expected SHA-256 of the key authorization, ${expected.toString('hex')}`,
    );
  }
  return null;
}

function namesIdentifier(name: GeneralName, identifier: AcmeIdentifier): boolean {
  if (identifier.type === 'dns') return name.type === 'DNS' && name.value.toLowerCase() === identifier.value.toLowerCase();
  return name.type === 'IP' && canonicalIp(name.value) !== null && canonicalIp(name.value) === canonicalIp(identifier.value);
}
