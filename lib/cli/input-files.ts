/**
 * The files commands read, checked for what they must be before anything is done with them, so that
 * a wrong file is named with what it is not (`/etc/passwd is not a PEM or DER certificate signing
 * request (PKCS#10)`) instead of an error from deep inside the parser. Only the shape is checked here:
 * what the structure says (a CSR's signature, a key's password) is left to the command's rules.
 */
import { parseCertificate } from '../x509/certificate';
import { parseCsr } from '../x509/csr';
import { X509Error } from '../x509/errors';
import { readTlv } from '../x509/tlv';
import { CaError } from '../ca/errors';
import type { CliIo } from './io';
import { readInput } from './files';

/** How an input is named in messages: its path, or standard input for `-`. */
function shown(path: string): string {
  return path === '-' ? 'standard input' : path;
}

/** `parse` (and `too-large`) errors of the engine become "PATH is not WHAT (why)"; others pass. */
function checked(path: string, what: string, check: () => unknown): void {
  try {
    check();
  } catch (e) {
    if (e instanceof X509Error && (e.code === 'parse' || e.code === 'too-large')) {
      throw new CaError('invalid', `${shown(path)} is not ${what} (${e.message}).`);
    }
    throw e;
  }
}

/** A CSR file (sign_cert --csr): PEM `CERTIFICATE REQUEST` or DER, structurally a PKCS#10 request (RFC 2986). */
export async function readCsrFile(io: CliIo, path: string): Promise<Buffer> {
  const data = await readInput(io, path, 'CSR');
  checked(path, 'a PEM or DER certificate signing request (PKCS#10)', () => parseCsr(data, { verify: false }));
  return data;
}

/** A certificate file (import_cert, import_ca): PEM `CERTIFICATE` or DER, an X.509 certificate (RFC 5280). */
export async function readCertificateFile(io: CliIo, path: string): Promise<Buffer> {
  const data = await readInput(io, path, 'certificate');
  checked(path, 'a PEM or DER X.509 certificate', () => parseCertificate(data));
  return data;
}

const PRIVATE_KEY_PEM = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----/;

/**
 * A private key file (import_ca KEY): a PEM `… PRIVATE KEY` block, or DER that is one SEQUENCE filling
 * the file (PKCS#8, encrypted PKCS#8, PKCS#1, SEC1); whether it opens is the key backend's to say.
 */
export async function readPrivateKeyFile(io: CliIo, path: string): Promise<Buffer> {
  const data = await readInput(io, path, 'private key');
  const what = 'a PEM or DER private key (PKCS#8, PKCS#1 or SEC1)';
  const text = data.toString('latin1');
  if (text.includes('-----BEGIN ')) {
    const label = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(text)?.[1];
    if (!PRIVATE_KEY_PEM.test(text)) {
      throw new CaError('invalid', `${shown(path)} is not ${what} (its PEM block is "${label ?? '?'}", not "… PRIVATE KEY").`);
    }
    return data;
  }
  let der = false;
  try {
    const top = readTlv(data, 0, data.length, 'private key');
    der = top.tag === 0x30 && top.end === data.length;
  } catch {
    // not DER either
  }
  if (!der) throw new CaError('invalid', `${shown(path)} is not ${what} (no PEM block, and not one DER SEQUENCE).`);
  return data;
}
