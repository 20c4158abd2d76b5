/**
 * A certificate of a request as it could be in the store from before the issuance policy: signed by
 * openssl with the CA's key (no rule applied), kept with its CSR as the issuance service keeps one.
 * Resigning it asks the policy about its stored CSR and names again (docs/COMPATIBILITY.md §3.6).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { newCertificateRecord } from '../../../lib/ca/records';
import type { CertificateRecord } from '../../../lib/ports';
import { parseCertificate } from '../../../lib/x509/certificate';
import { csrOf, type IssuanceRequest } from '../requests';
import type { World } from '../world';

export function pemOf(der: Buffer): string {
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

let counter = 0;

export async function prePolicyCertificate(world: World, req: IssuanceRequest): Promise<CertificateRecord> {
  const ca = world.cas[req.ca];
  const csr = csrOf(world, { ...req, days: undefined });
  const n = ++counter;
  const caKey = path.join(world.dir, `pre-ca-${n}.key`);
  const caPem = path.join(world.dir, `pre-ca-${n}.pem`);
  fs.writeFileSync(caKey, ca.keyPem);
  fs.writeFileSync(caPem, ca.pem);
  const der = execFileSync(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      csr.file,
      '-CA',
      caPem,
      '-CAkey',
      caKey,
      '-set_serial',
      `0x7${n.toString(16).padStart(15, '0')}${Date.now().toString(16)}`,
      '-days',
      '10',
      '-copy_extensions',
      'copy',
      '-outform',
      'DER',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  return world.store.insertCertificate(
    newCertificateRecord(parseCertificate(der), { caId: ca.record.id, csr: csr.pem, profile: 'webserver' }),
  );
}
