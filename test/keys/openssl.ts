/** The openssl CLI as an independent oracle for key tests. */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-keys-'));
  try {
    return fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function openssl(args: string[], input?: Buffer): Buffer {
  return execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** SubjectPublicKeyInfo DER that openssl derives from a private key file (any format openssl reads). */
export function opensslPublicKeyDer(keyDer: Buffer, password?: string): Buffer {
  return withTempDir((dir) => {
    const file = path.join(dir, 'key.der');
    fs.writeFileSync(file, keyDer);
    const pass = password === undefined ? [] : ['-passin', `pass:${password}`];
    return openssl(['pkey', '-inform', 'DER', '-in', file, ...pass, '-pubout', '-outform', 'DER']);
  });
}

/** Verify a signature with openssl; hash null = pure EdDSA. */
export function opensslVerifies(spkiDer: Buffer, data: Buffer, signature: Buffer, hash: string | null): boolean {
  return withTempDir((dir) => {
    const pub = path.join(dir, 'pub.der');
    const dataFile = path.join(dir, 'data');
    const sigFile = path.join(dir, 'sig');
    fs.writeFileSync(pub, spkiDer);
    fs.writeFileSync(dataFile, data);
    fs.writeFileSync(sigFile, signature);
    const args =
      hash === null
        ? ['pkeyutl', '-verify', '-pubin', '-keyform', 'DER', '-inkey', pub, '-rawin', '-in', dataFile, '-sigfile', sigFile]
        : ['dgst', `-${hash}`, '-keyform', 'DER', '-verify', pub, '-signature', sigFile, dataFile];
    try {
      openssl(args);
      return true;
    } catch {
      return false;
    }
  });
}

/** An encrypted PKCS#8 PEM of a DER key, made by openssl. */
export function opensslEncryptedPem(keyDer: Buffer, password: string): string {
  return withTempDir((dir) => {
    const file = path.join(dir, 'key.der');
    fs.writeFileSync(file, keyDer);
    return openssl(['pkcs8', '-topk8', '-inform', 'DER', '-in', file, '-v2', 'aes-256-cbc', '-passout', `pass:${password}`]).toString(
      'latin1',
    );
  });
}
