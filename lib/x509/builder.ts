/**
 * Certificate builder: a template of already-validated API values → TBSCertificate DER → signed
 * certificate DER.
 *
 * Speed matters here (a CA signs in bulk), so the builder trusts its input — validation happens once,
 * where API JSON is parsed — and serialises every part exactly once: parts that arrive as DER (the
 * issuer's Name, the subject public key) are copied byte for byte, the rest is encoded to DER, and
 * the SEQUENCEs around them are sized first and then written into one buffer — no re-parsing, no
 * PEM round trip, no copy per nesting level.
 */
import { encodeSignatureAlgorithm, signatureAlgorithmFor, type SignatureAlgorithm } from './algorithms';
import { integerBytes, oid, toDer } from './asn1';
import { X509Error } from './errors';
import { encodeExtensionValue } from './extensions';
import { encodeName } from './name';
import { randomSerial } from './serial';
import type { SignatureOptions, Signer } from './signer';
import type { Extension, KeyType, Name } from './types';

export interface CertificateTemplate {
  /** The issuer; a Buffer is the issuer CA's raw subject Name DER, copied byte for byte. */
  issuer: Name | Buffer;
  subject: Name | Buffer;
  /** Default: `randomSerial()`. */
  serialNumber?: bigint;
  notBefore: Date;
  notAfter: Date;
  /** SubjectPublicKeyInfo DER of the certified key (from a CSR or a key), copied as is. */
  publicKeyDer: Buffer;
  /** Normalised API extensions, written in this order. */
  extensions: Extension[];
  signature: SignatureOptions;
}

// DER tags
const SEQUENCE = 0x30;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;
const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;
const CONTEXT_3 = 0xa3;
/** `[0] EXPLICIT INTEGER 2`: every certificate we write is X.509 v3. */
const VERSION_V3 = Buffer.from([0xa0, 0x03, 0x02, 0x01, 0x02]);

export function buildTbsCertificate(t: CertificateTemplate, signerKeyType: KeyType): Buffer {
  return encodeTbs(t, algorithmDer(signatureAlgorithmFor(signerKeyType, t.signature)));
}

export async function buildCertificate(t: CertificateTemplate, signer: Signer): Promise<Buffer> {
  return signUnsignedCertificate(unsignedCertificate(t, signer.keyType), signer);
}

/**
 * A certificate up to its signature: the TBSCertificate DER (serial and all) and the algorithm that
 * will sign it. An issuing authority records the TBS before it asks the key for the signature
 * (docs/DESIGN.md "Issuing authority").
 */
export interface UnsignedCertificate {
  tbs: Buffer;
  serialNumber: bigint;
  algorithm: Buffer;
  signature: SignatureOptions;
}

export function unsignedCertificate(t: CertificateTemplate, signerKeyType: KeyType): UnsignedCertificate {
  const serialNumber = t.serialNumber ?? randomSerial();
  const algorithm = algorithmDer(signatureAlgorithmFor(signerKeyType, t.signature));
  return { tbs: encodeTbs({ ...t, serialNumber }, algorithm), serialNumber, algorithm, signature: t.signature };
}

/** Sign `unsigned` with `signer` (whose key type `unsignedCertificate` was given): the certificate's DER. */
export async function signUnsignedCertificate(unsigned: UnsignedCertificate, signer: Signer): Promise<Buffer> {
  const signature = await signer.sign(unsigned.tbs, unsigned.signature);
  // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }
  return serialize(tlv(SEQUENCE, [unsigned.tbs, unsigned.algorithm, tlv(BIT_STRING, [ZERO_UNUSED_BITS, signature])]));
}

const ZERO_UNUSED_BITS = Buffer.from([0]);

function encodeTbs(t: CertificateTemplate, algorithm: Buffer): Buffer {
  if (!(t.notAfter.getTime() >= t.notBefore.getTime())) {
    throw new X509Error('validation', 'notAfter must not be earlier than notBefore');
  }
  const parts: Part[] = [
    VERSION_V3,
    tlv(INTEGER, [integerBytes(t.serialNumber ?? randomSerial())]),
    algorithm,
    nameDer(t.issuer, true),
    tlv(SEQUENCE, [timeDer(t.notBefore), timeDer(t.notAfter)]),
    nameDer(t.subject, false),
    t.publicKeyDer,
  ];
  if (t.extensions.length > 0) parts.push(tlv(CONTEXT_3, [tlv(SEQUENCE, encodeExtensions(t.extensions))]));
  return serialize(tlv(SEQUENCE, parts));
}

/** An issuer Name is the same for every certificate a CA signs: worth remembering. */
function nameDer(name: Name | Buffer, remember: boolean): Buffer {
  if (Buffer.isBuffer(name)) return name;
  return remember ? memo.get('name', name, () => toDer(encodeName(name))) : toDer(encodeName(name));
}

/**
 * Extensions whose value is (nearly) always new per certificate; the others — key usage, EKU, AIA,
 * CRL distribution points, AKI, basic constraints... — repeat for every certificate a CA issues under
 * one profile, so their DER is remembered.
 */
const PER_CERTIFICATE_TYPES: ReadonlySet<string> = new Set(['subject_alternative_name', 'subject_key_identifier']);

function encodeExtensions(extensions: Extension[]): Part[] {
  const seen = new Set<string>();
  return extensions.map((ext) => {
    // RFC 5280 §4.2: "A certificate MUST NOT include more than one instance of a particular extension."
    const key = ext.type === 'unknown' ? `unknown:${(ext.value as { oid?: string } | null)?.oid}` : ext.type;
    if (seen.has(key)) throw new X509Error('validation', `This extension has already been set: ${ext.type}`);
    seen.add(key);
    if (PER_CERTIFICATE_TYPES.has(ext.type)) return extensionPart(ext);
    return memo.get('extension', ext, () => serialize(extensionPart(ext)));
  });
}

/**
 * DER of values that recur across certificates, keyed by their JSON — by content, never by object
 * identity, so a caller that changes a value in place still gets what it asked for. Encoding goes
 * through forge's tree serialiser and costs about twice a `JSON.stringify` of the same value
 * (bench/x509.ts). The map is bounded: when full it starts over, so one-off values cannot grow it.
 */
class DerMemo {
  private readonly entries = new Map<string, Buffer>();

  constructor(private readonly limit: number) {}

  get(kind: string, value: unknown, encode: () => Buffer): Buffer {
    let key: string;
    try {
      key = kind + JSON.stringify(value);
    } catch {
      return encode(); // JSON has no bigints (AKI serials, otherName INTEGERs): rare, so just encode
    }
    let der = this.entries.get(key);
    if (!der) {
      der = encode();
      if (this.entries.size >= this.limit) this.entries.clear();
      this.entries.set(key, der);
    }
    return der;
  }
}

const memo = new DerMemo(512);

/**
 * UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5280 §4.1.2.5), seconds precision — written
 * directly: the two validity dates change with every certificate.
 */
function timeDer(date: Date): Part {
  const year = date.getUTCFullYear();
  const utc = year >= 1950 && year < 2050;
  const text =
    (utc ? two(year % 100) : String(year).padStart(4, '0')) +
    two(date.getUTCMonth() + 1) +
    two(date.getUTCDate()) +
    two(date.getUTCHours()) +
    two(date.getUTCMinutes()) +
    two(date.getUTCSeconds()) +
    'Z';
  return tlv(utc ? UTC_TIME : GENERALIZED_TIME, [Buffer.from(text, 'latin1')]);
}

function two(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

const CRITICAL_TRUE = Buffer.from([0x01, 0x01, 0xff]);

/**
 * `Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }`, written
 * around the codec's extnValue bytes (so those are serialised once, not turned back into a tree).
 */
function extensionPart(ext: Extension): Part {
  const { oid: extnId, der } = encodeExtensionValue(ext);
  const parts: Part[] = [oidDer(extnId)];
  if (ext.critical) parts.push(CRITICAL_TRUE); // DER omits the DEFAULT value
  parts.push(tlv(OCTET_STRING, [der]));
  return tlv(SEQUENCE, parts);
}

/** OBJECT IDENTIFIER DER by dotted OID; a process only ever sees a few dozen extension OIDs. */
const oidCache = new Map<string, Buffer>();

function oidDer(dotted: string): Buffer {
  let der = oidCache.get(dotted);
  if (!der) {
    der = toDer(oid(dotted));
    if (oidCache.size < 1024) oidCache.set(dotted, der); // `unknown` extensions carry arbitrary OIDs
  }
  return der;
}

/** The AlgorithmIdentifier DER of each algorithm, encoded once per process. */
const algorithmCache = new Map<string, Buffer>();

function algorithmDer(alg: SignatureAlgorithm): Buffer {
  const key = `${alg.oid}/${alg.hash}/${alg.pss ? `${alg.pss.mgfHash}/${alg.pss.saltLength}` : ''}`;
  let der = algorithmCache.get(key);
  if (!der) {
    der = toDer(encodeSignatureAlgorithm(alg));
    algorithmCache.set(key, der);
  }
  return der;
}

// ---------------------------------------------------------------------------------------------------
// A minimal DER writer: a structure is described as parts whose sizes are known, then written once.

/** Encoded bytes, or a tag around parts not yet written. */
type Part = Buffer | Constructed;

interface Constructed {
  tag: number;
  parts: Part[];
  contentLength: number;
}

/** A TLV with `tag` around `parts` (which are already DER, or further `tlv`s). */
function tlv(tag: number, parts: Part[]): Constructed {
  let contentLength = 0;
  for (const p of parts) contentLength += sizeOf(p);
  return { tag, parts, contentLength };
}

function sizeOf(p: Part): number {
  return p instanceof Uint8Array ? p.length : 1 + lengthSize(p.contentLength) + p.contentLength;
}

function serialize(p: Part): Buffer {
  if (p instanceof Uint8Array) return p;
  const out = Buffer.allocUnsafe(sizeOf(p));
  write(p, out, 0);
  return out;
}

function write(p: Part, out: Buffer, at: number): number {
  if (p instanceof Uint8Array) {
    out.set(p, at);
    return at + p.length;
  }
  out[at++] = p.tag;
  const length = p.contentLength;
  if (length < 0x80) {
    out[at++] = length;
  } else {
    const octets = lengthSize(length) - 1;
    out[at++] = 0x80 | octets;
    for (let i = octets - 1; i >= 0; i--) out[at++] = Math.floor(length / 256 ** i) % 256;
  }
  for (const child of p.parts) at = write(child, out, at);
  return at;
}

/** Octets of a DER length field: short form below 128, else 0x8n and n big-endian octets. */
function lengthSize(length: number): number {
  if (length < 0x80) return 1;
  let octets = 0;
  for (let n = length; n > 0; n = Math.floor(n / 256)) octets++;
  return 1 + octets;
}
