/**
 * What a resign may copy from the original certificate, one rule for every door that resigns (REST's
 * resign, lib/api/resign-request.ts; `ca-admin resign_cert` and the admin interface's resign,
 * lib/cli/certificates.ts; docs/COMPATIBILITY.md §3.6): the CSR it was signed from (an imported
 * certificate has none), its hash unless the CA's key is Edwards, and its extensions except those the
 * door has the CA supply afresh — each door names those.
 */
import type { CaRecord, CertificateRecord } from '../ports';
import { parseExtension } from '../x509/extensions';
import type { Extension, ExtensionType, HashAlgorithmName } from '../x509/types';
import { caFacts, isEdwards } from './ca-facts';
import { CaError } from './errors';
import { isHashAlgorithm } from './profiles';

/** The original's extensions to copy; anything not configurable is refused up front (the original 500s). */
export function copiedExtensions(cert: CertificateRecord, skip: ReadonlySet<ExtensionType>): Extension[] {
  const copied = cert.certificate.extensions.filter((e) => !skip.has(e.type));
  const bad = copied.filter((e) => {
    try {
      parseExtension(e, { requireType: true, configurableOnly: true });
      return false;
    } catch {
      return true;
    }
  });
  if (bad.length) {
    const names = bad.map((e) => (e.type === 'unknown' ? `unknown (${(e.value as { oid: string }).oid})` : e.type));
    throw new CaError('invalid', `The certificate has extensions that cannot be copied to a new certificate: ${names.join(', ')}.`);
  }
  return copied;
}

export function originalHash(cert: CertificateRecord, ca: CaRecord): HashAlgorithmName | null {
  const hash = cert.certificate.signature_hash_algorithm;
  return !isEdwards(caFacts(ca).keyType) && isHashAlgorithm(hash) ? hash : null;
}

export function requireCsr(cert: CertificateRecord): string {
  if (!cert.csr) {
    throw new CaError('invalid', `${cert.serial}: The certificate has no CSR (it was imported), so it cannot be resigned.`, {
      apiDetail: 'Cannot resign certificate without a CSR.',
    });
  }
  return cert.csr;
}
