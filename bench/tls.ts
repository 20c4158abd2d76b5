/**
 * The TLS files the benches serve the example server over HTTPS with (bench/acme.ts, bench/enrol.ts).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/**
 * A TLS CA and a certificate for localhost and 127.0.0.1 signed by it (P-256), made with openssl in `dir`;
 * `caKey`: the CA's key (bench/acme-stepca.ts signs step-ca's intermediate with it).
 */
export function makeTls(dir: string): { caFile: string; caKey: string; certFile: string; keyFile: string } {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=bench TLS CA');
  openssl('req', '-new', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
  fs.writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  );
  return { caFile: file('ca.pem'), caKey: file('ca.key'), certFile: file('server.pem'), keyFile: file('server.key') };
}
