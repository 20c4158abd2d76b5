/**
 * Keys and certificates for the SCEP message tests, all made by openssl: a CA; an RA certificate it
 * issued as SCEP clients want one (RSA, keyUsage digitalSignature + keyEncipherment, no EKU); the RA's
 * "twin" — same issuer and serial number, another key — to address envelopes to the RA's name but
 * not its key; a device with a self-signed RSA certificate (the PKCSReq signer); an EC device; a CRL.
 * Also: which optional oracles this machine has (OpenSSL's legacy provider for single DES,
 * strongSwan's `pki`).
 */
import { execFileSync, spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface Party {
  /** Paths of the PEM key and certificate. */
  key: string;
  cert: string;
  keyPem: string;
  certDer: Buffer;
}

export interface Fixtures {
  dir: string;
  ca: Party;
  ra: Party;
  raTwin: Party;
  device: Party;
  ecDevice: Party;
  /** A CRL of the CA, DER. */
  crlDer: Buffer;
  /** Run openssl in `dir`. */
  openssl(args: string[], input?: Buffer): Buffer;
  /** Write `data` to a fresh file in `dir`; its path. */
  file(name: string, data: Buffer | string): string;
  cleanup(): void;
}

export function openssl(args: string[], input?: Buffer, cwd?: string): Buffer {
  return execFileSync('openssl', args, { input, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
}

function party(dir: string, name: string): Party {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.pem`);
  return { key, cert, keyPem: fs.readFileSync(key, 'utf8'), certDer: openssl(['x509', '-in', cert, '-outform', 'DER']) };
}

/** An RSA key in `dir` and a certificate for it issued by the CA with `serial`. */
function issued(dir: string, name: string, cn: string, serial: string, extensions: string): Party {
  const key = path.join(dir, `${name}.key`);
  const csr = path.join(dir, `${name}.csr`);
  openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-subj', `/O=SCEP Test/CN=${cn}`, '-out', csr]);
  const ext = path.join(dir, `${name}.ext`);
  fs.writeFileSync(ext, extensions);
  openssl(
    ['x509', '-req', '-in', csr, '-CA', path.join(dir, 'ca.pem'), '-CAkey', path.join(dir, 'ca.key'), '-set_serial', serial].concat([
      '-days',
      '1',
      '-extfile',
      ext,
      '-out',
      path.join(dir, `${name}.pem`),
    ]),
  );
  return party(dir, name);
}

export function makeFixtures(): Fixtures {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scep-x509-'));
  const run = (args: string[], input?: Buffer) => openssl(args, input, dir);
  run(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-subj', '/O=SCEP Test/CN=SCEP Test CA', '-days', '2'].concat([
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.pem',
    ]),
  );
  const raExtensions = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n';
  const ra = issued(dir, 'ra', 'SCEP Test RA', '0x5CE9', raExtensions);
  const raTwin = issued(dir, 'ra-twin', 'SCEP Test RA', '0x5CE9', raExtensions);
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'device.key',
    '-subj',
    '/O=scep-client/CN=SCEP SIGNER',
    '-days',
    '1',
    '-out',
    'device.pem',
  ]);
  run(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ec-device.key'].concat([
      '-subj',
      '/CN=EC SIGNER',
      '-days',
      '1',
      '-out',
      'ec-device.pem',
    ]),
  );
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(path.join(dir, 'crlnumber'), '01\n');
  fs.writeFileSync(
    path.join(dir, 'ca.cnf'),
    '[ca]\ndefault_ca = c\n[c]\ndatabase = index.txt\ncrlnumber = crlnumber\ndefault_md = sha256\ndefault_crl_days = 1\n',
  );
  run(['ca', '-gencrl', '-config', 'ca.cnf', '-keyfile', 'ca.key', '-cert', 'ca.pem', '-out', 'crl.pem']);
  let files = 0;
  return {
    dir,
    ca: party(dir, 'ca'),
    ra,
    raTwin,
    device: party(dir, 'device'),
    ecDevice: party(dir, 'ec-device'),
    crlDer: run(['crl', '-in', 'crl.pem', '-outform', 'DER']),
    openssl: run,
    file(name, data) {
      const p = path.join(dir, `${files++}-${name}`);
      fs.writeFileSync(p, data);
      return p;
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** The raw RSA private operation of a PEM key, as a software key holder offers it. */
export const rawDecrypt =
  (keyPem: string) =>
  (block: Buffer): Promise<Buffer> =>
    Promise.resolve(crypto.privateDecrypt({ key: keyPem, padding: crypto.constants.RSA_NO_PADDING }, block));

function works(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    return true;
  } catch {
    return false;
  }
}

/** OpenSSL's legacy provider loads: `openssl cms` can then read and write single-DES envelopes. */
export const HAS_LEGACY_PROVIDER = works('openssl', ['list', '-cipher-algorithms', '-provider', 'legacy', '-provider', 'default']);
/** The args that load it, for openssl commands that need DES-CBC. */
export const LEGACY = ['-provider', 'legacy', '-provider', 'default'];

/** strongSwan's `pki` (the strictest SCEP client's PKCS#7 code) is installed. */
export const HAS_STRONGSWAN_PKI = (() => {
  try {
    return execFileSync('pki', ['--help'], { stdio: ['ignore', 'pipe', 'pipe'] })
      .toString()
      .includes('strongSwan');
  } catch (e) {
    // `pki --help` exits non-zero after printing its usage.
    const out = (e as { stdout?: Buffer }).stdout?.toString() ?? '';
    return out.includes('strongSwan');
  }
})();

/** Run strongSwan's `pki`; its exit status and what it printed (its log, plugin noise included, goes to stderr). */
export function pki(args: string[]): { status: number; stdout: Buffer; stderr: string } {
  const run = spawnSync('pki', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr.toString() };
}
