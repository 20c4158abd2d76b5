/** The `openssl` CLI as an independent oracle. */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export function tmpDir(prefix = 'ca-admin-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function openssl(args: string[], input?: string | Buffer): string {
  return execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString('utf8');
}

/** A fresh CSR made by openssl (key type e.g. `ec`, `rsa:2048`, `ed25519`), as PEM file path. */
export function opensslCsr(
  dir: string,
  name: string,
  subject = '/CN=csr.example.com',
  keyArgs = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
): string {
  const out = path.join(dir, `${name}.csr`);
  openssl(['req', '-new', ...keyArgs, '-nodes', '-subj', subject, '-keyout', path.join(dir, `${name}.key`), '-out', out]);
  return out;
}

/** `openssl verify` of `leaf` against `root` with optional intermediates; returns openssl's output. */
export function opensslVerify(dir: string, root: string, leaf: string, intermediates: string[] = []): string {
  const write = (n: string, pem: string) => {
    const p = path.join(dir, n);
    fs.writeFileSync(p, pem);
    return p;
  };
  const args = ['verify', '-CAfile', write('root.pem', root)];
  if (intermediates.length) args.push('-untrusted', write('chain.pem', intermediates.join('')));
  args.push(write('leaf.pem', leaf));
  return openssl(args);
}
