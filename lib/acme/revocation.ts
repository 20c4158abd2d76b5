/**
 * revokeCert (RFC 8555 §7.6): who may revoke and with which reason, then the revocation service of
 * lib/ca — as a REST revocation, visible in OCSP and the CRLs at once. The account that ordered the
 * certificate may (at any time, not only while the order is kept, as in the original), and so may
 * the certificate's own key (any key type a JWS can carry).
 */
import crypto from 'crypto';
import { revokeCert } from '../ca/revocation';
import type { AcmeAccountRecord, CaRecord } from '../ports';
import { parseCertificate } from '../x509/certificate';
import { CRL_REASON_CODES } from '../x509/revocation/reasons';
import { acmeActor } from './issue';
import type { JwsSigner } from './jws';
import { alreadyRevoked, badRevocationReason, malformed, unauthorized } from './problems';
import type { AcmeServices } from './services';

/** RFC 5280 §5.3.1 code → stored name; 7 is unused and removeFromCRL (8) belongs to delta CRLs only. */
const REASONS: ReadonlyMap<number, string> = new Map(
  Object.entries(CRL_REASON_CODES)
    .filter(([name]) => name !== 'remove_from_crl')
    .map(([name, code]) => [code, name]),
);

/** A revocation request: the certificate's DER, the `reason` member as sent (absent: 0) and who signed it. */
export interface AcmeRevocation {
  der: Buffer;
  reasonCode: unknown;
  signer: JwsSigner;
  /** The account of a `kid` signature; null when the certificate's key signed. */
  account: AcmeAccountRecord | null;
  /** The client's address, for the audit log (docs/operations/audit-and-events.md "Audit"). */
  address: string | undefined;
}

export async function revokeFromAcme(services: AcmeServices, ca: CaRecord, revocation: AcmeRevocation, now: Date): Promise<void> {
  const { der, reasonCode, signer, account } = revocation;
  const reason = typeof reasonCode === 'number' ? REASONS.get(reasonCode) : undefined;
  if (!reason) throw badRevocationReason(`${String(reasonCode)}: Unsupported revocation reason.`);
  let serial: string;
  try {
    serial = parseCertificate(der).serial;
  } catch {
    throw malformed('The certificate cannot be parsed.');
  }
  const cert = await services.store.findCertificate(ca.id, serial);
  if (!cert || cert.notAfter <= now) throw unauthorized('Certificate not found.');
  if (!cert.der.equals(der)) throw unauthorized('Certificate does not match records.');

  if (signer.kind === 'jwk') {
    const spki = signer.key.export({ type: 'spki', format: 'der' });
    const certificateKey = new crypto.X509Certificate(cert.der).publicKey.export({ type: 'spki', format: 'der' });
    if (!spki.equals(certificateKey)) throw unauthorized('Request signed by the wrong certificate.');
  } else {
    const order = await services.acme.findOrderOfCertificate(cert.id);
    if (!account || !order || order.accountId !== account.id) throw unauthorized('The account did not order this certificate.');
  }
  if (cert.revoked) throw alreadyRevoked('The certificate is already revoked.');
  const from = revocation.address ? { address: revocation.address } : {};
  const actor = { ...(account ? acmeActor(account.id) : { type: 'certificate_key', protocol: 'acme' }), ...from };
  await revokeCert(services.store, cert, { reason, actor, now });
}
