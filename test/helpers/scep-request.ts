/**
 * SCEP requests (RFC 8894 §3) written as clients write them, for tests: a device key and its
 * self-signed signer certificate and CSR made by openssl, the CSR (or other content) enveloped to the
 * RA by `openssl cms -encrypt` (an independent implementation of EnvelopedData), and the signed layer
 * written here with SCEP's attributes, as strongSwan and micromdm write it (openssl cannot add them),
 * with every knob a test needs to break one thing at a time. The tests check with `openssl cms
 * -verify` that what it builds is valid CMS, so that this writer is not just the reader's mirror
 * image; what comes back is read with `openssl cms` too.
 */
import { execFileSync } from 'child_process';
import type { Response } from 'supertest';
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

/** Who signs a request: the certificate and key of a Device (or of any party with both). */
export type Signer = Pick<Device, 'certDer' | 'keyPem'>;

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  envelopedData: '1.2.840.113549.1.7.3',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  messageType: '2.16.840.1.113733.1.9.2',
  senderNonce: '2.16.840.1.113733.1.9.5',
  transactionId: '2.16.840.1.113733.1.9.7',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha1WithRSA: '1.2.840.113549.1.1.5',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  rsassaPss: '1.2.840.113549.1.1.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  md5: '1.2.840.113549.2.5',
  sha224: '2.16.840.1.101.3.4.2.4',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
} as const;

export type Digest = 'sha1' | 'sha256' | 'sha384' | 'sha512';

export interface RequestSpec {
  /** The eContent octets (the EnvelopedData DER). */
  content: Buffer;
  /** The signer: its certificate goes in `certificates` and names the SignerInfo; its key signs. */
  signer: Signer;
  /** messageType (RFC 8894 §3.2.1.2); default 19 (PKCSReq). */
  messageType?: string | number;
  transactionId?: string;
  senderNonce?: Buffer;
  digest?: Digest;
  /** A digestAlgorithm OID other than `digest`'s (the signature is still made with `digest`). */
  digestOid?: string;
  /** SignerInfo signatureAlgorithm; default rsaEncryption with NULL. */
  signatureOid?: string;
  /** Sign with this key instead (the signature then does not verify with the certificate's). */
  signWith?: string;
  /** The messageDigest attribute's value instead of the content's digest. */
  messageDigest?: Buffer;
  /** The contentType attribute's OID; default id-data. */
  contentTypeAttribute?: string;
  /** Signed attributes left out, by OID. */
  omit?: string[];
  /** Further signed attributes (whole Attribute TLVs). */
  extraAttributes?: Buffer[];
  /** Keep the attributes in the order written instead of DER order (BER encoders do). */
  unsorted?: boolean;
  /** `certificates` [0]; default the signer's alone. */
  certificates?: Buffer[];
  /** The SignerInfo this many times; default 1. */
  signerInfoCount?: number;
  /** eContent as a constructed OCTET STRING of chunks this long (BER, as some encoders write it). */
  contentChunk?: number;
  /** A raw signature transform (e.g. flip a bit). */
  tamperSignature?: (signature: Buffer) => Buffer;
}

export const printable = (text: string): Buffer => tlv(0x13, Buffer.from(text, 'latin1'));
export const attribute = (oid: string, value: Buffer): Buffer => tlv(0x30, derOid(oid), tlv(0x31, value));
const algorithm = (oid: string): Buffer => tlv(0x30, derOid(oid), DER_NULL);

/** The pkiMessage DER of `spec`: its content signed with SCEP's attributes (RFC 8894 §3.2). */
export function buildRequest(spec: RequestSpec): Buffer {
  const digest = spec.digest ?? 'sha256';
  const omit = new Set(spec.omit ?? []);
  const standard: [string, Buffer][] = [
    [OID.contentType, derOid(spec.contentTypeAttribute ?? OID.data)],
    [OID.messageDigest, tlv(0x04, spec.messageDigest ?? crypto.createHash(digest).update(spec.content).digest())],
    [OID.messageType, printable(String(spec.messageType ?? 19))],
    [OID.transactionId, printable(spec.transactionId ?? crypto.randomBytes(20).toString('hex').toUpperCase())],
    [OID.senderNonce, tlv(0x04, spec.senderNonce ?? crypto.randomBytes(16))],
  ];
  const attributes = standard.filter(([oid]) => !omit.has(oid)).map(([oid, value]) => attribute(oid, value));
  attributes.push(...(spec.extraAttributes ?? []));
  const signedAttributes = spec.unsorted ? tlv(0x31, ...attributes) : derSetOf(attributes);

  let signature: Buffer = crypto.sign(digest, signedAttributes, spec.signWith ?? spec.signer.keyPem);
  if (spec.tamperSignature) signature = spec.tamperSignature(signature);
  const digestAlgorithm = algorithm(spec.digestOid ?? OID[digest]);
  const signerInfo = tlv(
    0x30,
    derSmallInteger(1),
    tlv(0x30, certificateIdentity(spec.signer.certDer).issuerAndSerial),
    digestAlgorithm,
    Buffer.concat([Buffer.from([0xa0]), signedAttributes.subarray(1)]),
    algorithm(spec.signatureOid ?? OID.rsaEncryption),
    tlv(0x04, signature),
  );
  const eContent =
    spec.contentChunk === undefined
      ? tlv(0x04, spec.content)
      : tlv(0x24, ...chunks(spec.content, spec.contentChunk).map((chunk) => tlv(0x04, chunk)));
  const signedData = tlv(
    0x30,
    derSmallInteger(1),
    tlv(0x31, digestAlgorithm),
    tlv(0x30, derOid(OID.data), tlv(0xa0, eContent)),
    tlv(0xa0, ...(spec.certificates ?? [spec.signer.certDer])),
    tlv(0x31, ...Array<Buffer>(spec.signerInfoCount ?? 1).fill(signerInfo)),
  );
  return tlv(0x30, derOid(OID.signedData), tlv(0xa0, signedData));
}

function chunks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
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
  /** For a SUCCESS: the CRLs of the envelope (PEM), as a GetCRL answer carries one. */
  crls: string[];
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
  let crls: string[] = [];
  if (content.length > 0) {
    const bag = openssl(['cms', '-decrypt', '-inform', 'DER', '-binary', '-recip', device.cert, '-inkey', device.key], content);
    const pem = openssl(['pkcs7', '-inform', 'DER', '-print_certs'], bag).toString();
    certificates = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
    crls = pem.match(/-----BEGIN X509 CRL-----[\s\S]+?-----END X509 CRL-----\n/g) ?? [];
  }
  return {
    status: attr('2.16.840.1.113733.1.9.3') ?? '',
    failInfo: attr('2.16.840.1.113733.1.9.4'),
    failInfoText: attr('2.16.840.1.113733.1.9.24'),
    transactionId: attr('2.16.840.1.113733.1.9.7') ?? '',
    recipientNonce: attr('2.16.840.1.113733.1.9.6') ?? '',
    certificates,
    crls,
  };
}

/** What GetCACaps lists with the legacy algorithms accepted (docs/guides/scep.md). */
export const CAPABILITIES = ['POSTPKIOperation', 'Renewal', 'SHA-1', 'SHA-256', 'SHA-384', 'SHA-512', 'AES', 'DES3', 'SCEPStandard'];

/** `openssl x509 -text` of an RA certificate says what SCEP clients look for: RSA-2048, encryption and signatures, no EKU, no CA. */
export function expectRaCertificate(text: string): void {
  expect(text).toMatch(/Public-Key: \(2048 bit\)/);
  expect(text).toMatch(/X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment\n/);
  expect(text).not.toContain('Extended Key Usage');
  expect(text).toContain('CA:FALSE');
}

/** supertest's parser for a binary answer (SCEP's GetCACert and CertRep): the body as one Buffer. */
export const binary = (res: Response, cb: (err: Error | null, body: Buffer) => void): void => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

/** The certificates of a DER certs-only PKCS#7, as openssl prints them (PEM, in order). */
export function certsOf(der: Buffer): string[] {
  const pem = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: der }).toString();
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
}
