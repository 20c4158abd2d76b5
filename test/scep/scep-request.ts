/**
 * SCEP requests built as clients build them (RFC 8894 §3), for tests: a device key and its
 * self-signed signer certificate and CSR made by openssl, the CSR (or other content) enveloped to the
 * RA by `openssl cms -encrypt` (an independent implementation of EnvelopedData), and the signed layer
 * written here with SCEP's attributes, as strongSwan and micromdm write it. What comes back is read
 * with `openssl cms` too.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { DER_NULL, derOid, derSetOf, derSmallInteger, tlv } from '../../lib/x509/der-writer';
import { certificateIdentity } from '../../lib/x509/scep/certificate-identity';

export interface Device {
  key: string;
  cert: string;
  keyPem: string;
  certDer: Buffer;
}

const openssl = (args: string[], input?: Buffer): Buffer => execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });

/** An RSA device key in `dir` with a self-signed certificate for `cn` (the PKCSReq signer). */
export function makeDevice(dir: string, name: string, cn = `${name}.example.org`): Device {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.pem`);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-subj', `/CN=${cn}`, '-days', '1', '-out', cert]);
  return { key, cert, keyPem: fs.readFileSync(key, 'utf8'), certDer: openssl(['x509', '-in', cert, '-outform', 'DER']) };
}

/** A DER CSR of `keyFile` for `cn` (a SAN of the same name), with `challenge` as challengePassword when given. */
export function csrOf(dir: string, keyFile: string, cn: string, challenge?: string): Buffer {
  const config = path.join(dir, `req-${crypto.randomBytes(4).toString('hex')}.cnf`);
  fs.writeFileSync(
    config,
    [
      '[req]',
      'distinguished_name = dn',
      'attributes = attrs',
      'prompt = no',
      '[dn]',
      `CN = ${cn}`,
      '[attrs]',
      ...(challenge ? [`challengePassword = ${challenge}`] : []),
    ].join('\n'),
  );
  return openssl(['req', '-new', '-key', keyFile, '-config', config, '-addext', `subjectAltName=DNS:${cn}`, '-outform', 'DER']);
}

/** `content` enveloped to `recipientPem` by openssl with `cipher` (`-des3`, `-aes128`, `-aes256`). */
export function envelope(dir: string, content: Buffer, recipientPem: string, cipher = '-aes128'): Buffer {
  const recipient = path.join(dir, `recipient-${crypto.randomBytes(4).toString('hex')}.pem`);
  fs.writeFileSync(recipient, recipientPem);
  return openssl(['cms', '-encrypt', '-binary', '-outform', 'DER', cipher, recipient], content);
}

export interface RequestOptions {
  messageType: number;
  transactionId?: string;
  senderNonce?: Buffer;
  digest?: 'sha1' | 'sha256';
  /** Sign with this key instead of the device's (the signature then does not verify). */
  signWith?: string;
}

const SHA_OID = { sha1: '1.3.14.3.2.26', sha256: '2.16.840.1.101.3.4.2.1' };
const printable = (text: string) => tlv(0x13, Buffer.from(text, 'latin1'));
const attribute = (oid: string, value: Buffer) => tlv(0x30, derOid(oid), tlv(0x31, value));

/** The pkiMessage: `envelopeDer` signed by `device` with SCEP's attributes (RFC 8894 §3.2). */
export function pkiMessage(device: Device, envelopeDer: Buffer, o: RequestOptions): Buffer {
  const digest = o.digest ?? 'sha256';
  const signedAttributes = derSetOf([
    attribute('1.2.840.113549.1.9.3', derOid('1.2.840.113549.1.7.1')),
    attribute('1.2.840.113549.1.9.4', tlv(0x04, crypto.createHash(digest).update(envelopeDer).digest())),
    attribute('2.16.840.1.113733.1.9.2', printable(String(o.messageType))),
    attribute('2.16.840.1.113733.1.9.7', printable(o.transactionId ?? crypto.randomBytes(20).toString('hex').toUpperCase())),
    attribute('2.16.840.1.113733.1.9.5', tlv(0x04, o.senderNonce ?? crypto.randomBytes(16))),
  ]);
  const signature = crypto.sign(digest, signedAttributes, o.signWith ?? device.keyPem);
  const algorithm = tlv(0x30, derOid(SHA_OID[digest]), DER_NULL);
  const signerInfo = tlv(
    0x30,
    derSmallInteger(1),
    tlv(0x30, certificateIdentity(device.certDer).issuerAndSerial),
    algorithm,
    Buffer.concat([Buffer.from([0xa0]), signedAttributes.subarray(1)]),
    tlv(0x30, derOid('1.2.840.113549.1.1.1'), DER_NULL),
    tlv(0x04, signature),
  );
  const signedData = tlv(
    0x30,
    derSmallInteger(1),
    tlv(0x31, algorithm),
    tlv(0x30, derOid('1.2.840.113549.1.7.1'), tlv(0xa0, tlv(0x04, envelopeDer))),
    tlv(0xa0, device.certDer),
    tlv(0x31, signerInfo),
  );
  return tlv(0x30, derOid('1.2.840.113549.1.7.2'), tlv(0xa0, signedData));
}

export interface CertRepSeen {
  /** SCEP's signed attributes by name, as openssl prints them. */
  status: string;
  failInfo: string | null;
  failInfoText: string | null;
  transactionId: string;
  recipientNonce: string;
  /** For a SUCCESS: the certificates of the envelope, decrypted with the device's key by openssl (PEM). */
  certificates: string[];
}

/** What openssl reads in a CertRep: its signature verified (without a chain), its attributes, its envelope opened. */
export function readCertRep(dir: string, der: Buffer, device: Device): CertRepSeen {
  const printed = openssl(['cms', '-cmsout', '-print', '-inform', 'DER'], der).toString();
  const attr = (oid: string) => {
    const m = new RegExp(
      `object: (?:undefined )?\\(?${oid.replace(/\./g, '\\.')}\\)?[\\s\\S]*?(?:PRINTABLESTRING|OCTET STRING|UTF8STRING):\\s*([^\\n]*)`,
    ).exec(printed);
    return m ? m[1].trim() : null;
  };
  const content = openssl(['cms', '-verify', '-inform', 'DER', '-noverify', '-binary'], der);
  let certificates: string[] = [];
  if (content.length > 0) {
    const bag = openssl(['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', device.cert, '-inkey', device.key], content);
    const pem = openssl(['pkcs7', '-inform', 'DER', '-print_certs'], bag).toString();
    certificates = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
  }
  return {
    status: attr('2.16.840.1.113733.1.9.3') ?? '',
    failInfo: attr('2.16.840.1.113733.1.9.4'),
    failInfoText: attr('2.16.840.1.113733.1.9.24'),
    transactionId: attr('2.16.840.1.113733.1.9.7') ?? '',
    recipientNonce: attr('2.16.840.1.113733.1.9.6') ?? '',
    certificates,
  };
}

/** What GetCACaps lists with the legacy algorithms accepted (README "SCEP"). */
export const CAPABILITIES = ['POSTPKIOperation', 'Renewal', 'SHA-1', 'SHA-256', 'SHA-384', 'SHA-512', 'AES', 'DES3', 'SCEPStandard'];

/** `openssl x509 -text` of an RA certificate says what SCEP clients look for: RSA-2048, encryption and signatures, no EKU, no CA. */
export function expectRaCertificate(text: string): void {
  expect(text).toMatch(/Public-Key: \(2048 bit\)/);
  expect(text).toMatch(/X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment\n/);
  expect(text).not.toContain('Extended Key Usage');
  expect(text).toContain('CA:FALSE');
}
