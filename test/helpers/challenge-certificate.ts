/**
 * tls-alpn-01 challenge certificates (RFC 8737 §3) for tests, made with the engine's own builder:
 * self-signed, a subjectAltName with the identifier, the acmeIdentifier extension with SHA-256 of the
 * key authorization — each of which a test may get wrong on purpose.
 */
import { createHash } from 'crypto';
import { ACME_IDENTIFIER_OID, encodeAcmeIdentifierValue } from '../../lib/x509/acme-identifier';
import { buildCertificate } from '../../lib/x509/builder';
import { keyObjectSigner } from '../../lib/x509/key-signer';
import { exportPrivateKey, generatePrivateKey } from '../../lib/x509/keys';
import { pemEncode } from '../../lib/x509/pem';
import type { Extension, GeneralName } from '../../lib/x509/types';

export interface ChallengeCertificateOptions {
  keyAuthorization: string;
  /** The subjectAltName entries. */
  names: GeneralName[];
  /** Default true; RFC 8737 §3 requires it. */
  critical?: boolean;
  /** Default SHA-256 of the key authorization. */
  digest?: Buffer;
  /** Default false: no acmeIdentifier extension at all when true. */
  omitAcmeIdentifier?: boolean;
}

const key = generatePrivateKey({ keyType: 'EC', curve: 'secp256r1' });
const signer = keyObjectSigner(key);

/** PEM key and certificate, as `tls.createSecureContext` takes them. */
export async function challengeCertificate(options: ChallengeCertificateOptions): Promise<{ key: string; cert: string }> {
  const digest = options.digest ?? createHash('sha256').update(options.keyAuthorization).digest();
  const extensions: Extension[] = [{ type: 'subject_alternative_name', critical: false, value: options.names }];
  if (!options.omitAcmeIdentifier) {
    extensions.push({
      type: 'unknown',
      critical: options.critical ?? true,
      value: { oid: ACME_IDENTIFIER_OID, value: encodeAcmeIdentifierValue(digest).toString('base64') },
    });
  }
  const now = Date.now();
  const der = await buildCertificate(
    {
      issuer: [{ oid: '2.5.4.3', value: 'ACME challenge' }],
      subject: [{ oid: '2.5.4.3', value: 'ACME challenge' }],
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 3600_000),
      publicKeyDer: signer.publicKeyDer,
      extensions,
      signature: { hash: 'SHA-256' },
    },
    signer,
  );
  return { key: exportPrivateKey(key, { format: 'pem' }), cert: pemEncode(der, 'CERTIFICATE') };
}
