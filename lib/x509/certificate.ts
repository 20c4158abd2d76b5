/**
 * Reading X.509 certificates (RFC 5280 §4.1) into the API record of docs/COMPATIBILITY.md §2
 *
 * A certificate is read once, completely: the DER is walked for exact byte slices (the TBSCertificate
 * that the signature covers, issuer, subject, SPKI) and parsed once with forge for the values; the
 * JSON record and fingerprints are computed in the same pass so that nobody re-parses later.
 */
import {
  Node,
  Tlv,
  Type,
  contextTag,
  parseDer,
  readBitString,
  readInteger,
  readSequence,
  readTime,
  readSignedEnvelope,
  readTlvChildren,
} from './asn1';
import { SignatureAlgorithm, decodeSignatureAlgorithm, signatureParametersJson, verifySignature } from './algorithms';
import { formatUtc } from './datetime';
import { parseError } from './errors';
import { decodeExtensionNode } from './extensions/index';
import { fingerprints as computeFingerprints } from './fingerprints';
import { decodeName } from './name';
import { derFromInput, pemEncode } from './pem';
import { PublicKeyInfo, parsePublicKeyInfo } from './public-key';
import { serialToHex } from './serial-format';
import type { CertificateJson, Extension, Fingerprints, Name } from './types';

export interface ParsedCertificate {
  der: Buffer;
  tbsDer: Buffer;
  serialNumber: bigint;
  /** API form of the serial (docs/COMPATIBILITY.md §2). */
  serial: string;
  /** As the API reports it: 2 for v3, 0 for v1. */
  version: number;
  notBefore: Date;
  notAfter: Date;
  issuer: Name;
  issuerDer: Buffer;
  subject: Name;
  subjectDer: Buffer;
  publicKey: PublicKeyInfo;
  signatureAlgorithm: SignatureAlgorithm;
  /** The signatureValue bits (DER SEQUENCE { r, s } for ECDSA/DSA). */
  signature: Buffer;
  extensions: Extension[];
  /** The `certificate` field of docs/COMPATIBILITY.md §2 */
  json: CertificateJson;
  /**
   * Digests of the DER in the eight algorithms of docs/COMPATIBILITY.md §2 Computed on first access: they
   * cost as much as the rest of the parse together (four of them are SHA-3), and many readers of a
   * certificate (the builder, chain checks) never look at them.
   */
  readonly fingerprints: Fingerprints;
}

const TAG_VERSION = 0xa0; // [0] EXPLICIT
const TAG_ISSUER_UID = 0x81; // [1] IMPLICIT BIT STRING
const TAG_SUBJECT_UID = 0x82; // [2] IMPLICIT BIT STRING
const TAG_EXTENSIONS = 0xa3; // [3] EXPLICIT

function slice(der: Buffer, t: Tlv): Buffer {
  return der.subarray(t.start, t.end);
}

/** Parse a certificate given as PEM text or DER bytes. Malformed → X509Error('parse'). */
export function parseCertificate(input: string | Buffer): ParsedCertificate {
  const der = derFromInput(input, 'CERTIFICATE');
  const what = 'certificate';

  // 1. Byte positions of the envelope.
  const outer = readSignedEnvelope(der, what);
  const tbsTlv = outer[0];
  const fields = readTlvChildren(der, tbsTlv, 'TBSCertificate');

  // 2. Values, from one forge parse.
  const root = parseDer(der, what);
  const [tbsNode, sigAlgNode, sigValueNode] = readSequence(root, what);
  const tbs = readSequence(tbsNode, 'TBSCertificate');

  let i = 0;
  let version = 0;
  if (fields[0]?.tag === TAG_VERSION) {
    const inner = tbs[0].value as Node[];
    if (inner.length !== 1) throw parseError('certificate version: malformed');
    const v = readInteger(inner[0], 'certificate version');
    if (v < 0n || v > 2n) throw parseError(`certificate version: unknown version ${v}`);
    // DER: the DEFAULT v1 must not be encoded.
    if (v === 0n) throw parseError('certificate version: explicit v1 is not DER');
    version = Number(v);
    i = 1;
  }
  if (fields.length < i + 6) throw parseError('TBSCertificate: missing fields');

  const serialNumber = readInteger(tbs[i], 'certificate serial number');
  const innerSigAlg = fields[i + 1];
  const issuerTlv = fields[i + 2];
  const validity = readSequence(tbs[i + 3], 'certificate validity');
  const subjectTlv = fields[i + 4];
  const spkiTlv = fields[i + 5];
  if (validity.length !== 2) throw parseError('certificate validity: malformed');
  const notBefore = readTime(validity[0], 'notBefore');
  const notAfter = readTime(validity[1], 'notAfter');

  // RFC 5280 §4.1.1.2: the outer algorithm must equal the one inside the signed part.
  if (!slice(der, innerSigAlg).equals(slice(der, outer[1]))) {
    throw parseError('certificate: signatureAlgorithm differs from the TBSCertificate signature field');
  }
  const signatureAlgorithm = decodeSignatureAlgorithm(sigAlgNode);
  const sigBits = readBitString(sigValueNode, 'certificate signature');
  if (sigBits.unusedBits !== 0) throw parseError('certificate signature: partial byte');

  const issuerDer = slice(der, issuerTlv);
  const subjectDer = slice(der, subjectTlv);
  const issuer = decodeName(tbs[i + 2]);
  const subject = decodeName(tbs[i + 4]);
  const publicKey = parsePublicKeyInfo(slice(der, spkiTlv));

  // Optional trailing fields, in order: issuerUniqueID, subjectUniqueID (v2+), extensions (v3).
  let extensions: Extension[] = [];
  let last = 0;
  for (let j = i + 6; j < fields.length; j++) {
    const tag = fields[j].tag;
    const rank = tag === TAG_ISSUER_UID ? 1 : tag === TAG_SUBJECT_UID ? 2 : tag === TAG_EXTENSIONS ? 3 : 0;
    if (rank <= last) throw parseError('TBSCertificate: unexpected field after the public key');
    last = rank;
    if (rank < 3 && version < 1) throw parseError('TBSCertificate: unique identifiers require v2 or v3');
    if (rank === 3) {
      if (version !== 2) throw parseError('TBSCertificate: extensions require v3');
      extensions = decodeExtensions(tbs[j]);
    }
  }

  const serial = serialToHex(serialNumber);
  const pem = pemEncode(der, 'CERTIFICATE');
  const json: CertificateJson = {
    serial,
    version,
    not_valid_before: formatUtc(notBefore),
    not_valid_after: formatUtc(notAfter),
    issuer,
    subject,
    signature_hash_algorithm: signatureAlgorithm.hash,
    signature_algorithm_oid: signatureAlgorithm.oid,
    public_key_algorithm_oid: publicKey.oid,
    signature_algorithm_parameters: signatureParametersJson(signatureAlgorithm),
    extensions,
    pem,
  };

  let fingerprints: Fingerprints | undefined;
  return {
    der,
    tbsDer: slice(der, tbsTlv),
    serialNumber,
    serial,
    version,
    notBefore,
    notAfter,
    issuer,
    issuerDer,
    subject,
    subjectDer,
    publicKey,
    signatureAlgorithm,
    signature: sigBits.bytes,
    extensions,
    json,
    get fingerprints() {
      return (fingerprints ??= computeFingerprints(der));
    },
  };
}

/** `[3] EXPLICIT SEQUENCE SIZE (1..MAX) OF Extension`, each OID at most once (RFC 5280 §4.2). */
function decodeExtensions(wrapper: Node): Extension[] {
  const inner = wrapper.value as Node[];
  if (contextTag(wrapper) !== 3 || !Array.isArray(inner) || inner.length !== 1) {
    throw parseError('certificate extensions: malformed');
  }
  const list = readSequence(inner[0], 'certificate extensions');
  if (list.length === 0) throw parseError('certificate extensions: empty list');
  const seen = new Set<string>();
  const out: Extension[] = [];
  for (const ext of list) {
    const parts = readSequence(ext, 'extension');
    const oidNode = parts[0];
    if (!oidNode || oidNode.type !== Type.OID || typeof oidNode.value !== 'string') {
      throw parseError('extension: missing extnID');
    }
    // The raw OID content identifies duplicates without decoding it twice.
    if (seen.has(oidNode.value)) throw parseError('certificate: duplicate extension');
    seen.add(oidNode.value);
    out.push(decodeExtensionNode(ext));
  }
  return out;
}

/** Does `issuerSpkiDer`'s key verify this certificate's signature? */
export function verifyCertificateSignature(cert: ParsedCertificate, issuerSpkiDer: Buffer): boolean {
  return verifySignature(cert.signatureAlgorithm, issuerSpkiDer, cert.tbsDer, cert.signature);
}
