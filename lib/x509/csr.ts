/**
 * Reading PKCS#10 certificate signing requests (RFC 2986) and checking their self-signature.
 *
 * The self-signature is the requester's proof that it holds the private key (docs/reference/differences.md D4: upstream
 * never checks it; we do, by default).
 */
import {
  Node,
  Tlv,
  Type,
  contextTag,
  parseDer,
  readBitString,
  readInteger,
  readOctets,
  readOid,
  readSequence,
  readSet,
  readSignedEnvelope,
  readTlvChildren,
  readBoolean,
} from './asn1';
import { SignatureAlgorithm, decodeSignatureAlgorithm, verifySignature, verifySignatureAsync } from './algorithms';
import { X509Error, parseError } from './errors';
import { decodeExtensionNode } from './extensions/index';
import { decodeName } from './name';
import { DEFAULT_MAX_INPUT_BYTES, derFromInput, pemEncode } from './pem';
import { PublicKeyInfo, parsePublicKeyInfo } from './public-key';
import type { Extension, Name } from './types';

export interface ParsedCsr {
  der: Buffer;
  /** Re-encoded PEM, as the certificate record's `csr` field shows it (docs/COMPATIBILITY.md §2). */
  pem: string;
  subject: Name;
  publicKey: PublicKeyInfo;
  signatureAlgorithm: SignatureAlgorithm;
  /** Extensions of the PKCS#9 extensionRequest attribute, in request order. */
  requestedExtensions: Extension[];
}

export const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

const LABEL = 'CERTIFICATE REQUEST';
/** Label written by old Netscape/Microsoft tools; OpenSSL and cryptography read it too. */
const LEGACY_LABEL = 'NEW CERTIFICATE REQUEST';

function slice(der: Buffer, t: Tlv): Buffer {
  return der.subarray(t.start, t.end);
}

function csrDer(input: string | Buffer): Buffer {
  const text = typeof input === 'string' ? input : null;
  if (text !== null && text.length <= DEFAULT_MAX_INPUT_BYTES && text.includes(`-----BEGIN ${LEGACY_LABEL}-----`)) {
    return derFromInput(text, LEGACY_LABEL);
  }
  return derFromInput(input, LABEL);
}

/** The outer envelope and the CertificationRequestInfo fields of a CSR, read with the TLV walker. */
function readCsrInfo(der: Buffer): { outer: [Tlv, Tlv, Tlv]; infoFields: Tlv[] } {
  const outer = readSignedEnvelope(der, 'certificate signing request');
  const infoFields = readTlvChildren(der, outer[0], 'CertificationRequestInfo');
  if (infoFields.length < 3 || infoFields.length > 4) throw parseError('CertificationRequestInfo: malformed');
  return { outer, infoFields };
}

/**
 * Parse a CSR given as PEM text or DER bytes. With `verify` (the default) the self-signature must
 * verify, else X509Error('signature').
 */
export function parseCsr(input: string | Buffer, options: { verify?: boolean } = {}): ParsedCsr {
  const { parsed, info, signature } = readCsr(input);
  if ((options.verify ?? true) && !verifySignature(parsed.signatureAlgorithm, parsed.publicKey.der, info, signature)) {
    throw invalidCsrSignature();
  }
  return parsed;
}

/** A parsed CSR, and what its self-signature covers. */
function readCsr(input: string | Buffer): { parsed: ParsedCsr; info: Buffer; signature: Buffer } {
  const der = csrDer(input);
  const what = 'certificate signing request';

  const { outer, infoFields } = readCsrInfo(der);

  const root = parseDer(der, what);
  const [infoNode, sigAlgNode, sigValueNode] = readSequence(root, what);
  const info = readSequence(infoNode, 'CertificationRequestInfo');
  const version = readInteger(info[0], 'CSR version');
  if (version !== 0n) throw parseError(`CSR version: unknown version ${version}`);
  const subject = decodeName(info[1]);
  const publicKey = parsePublicKeyInfo(slice(der, infoFields[2]));
  // attributes [0] is mandatory in RFC 2986, but some encoders omit an empty set.
  const requestedExtensions = info[3] ? readAttributes(info[3]) : [];

  const signatureAlgorithm = decodeSignatureAlgorithm(sigAlgNode);
  const sigBits = readBitString(sigValueNode, 'CSR signature');
  if (sigBits.unusedBits !== 0) throw parseError('CSR signature: partial byte');

  const parsed = { der, pem: pemEncode(der, LABEL), subject, publicKey, signatureAlgorithm, requestedExtensions };
  return { parsed, info: slice(der, outer[0]), signature: sigBits.bytes };
}

function invalidCsrSignature(): X509Error {
  return new X509Error('signature', 'The CSR signature is invalid: it was not made with the private key of the public key in the CSR.');
}

/** Checks a signature asynchronously, like `verifySignatureAsync` (or a SignatureVerifier of the ports). */
export type AsyncVerify = (alg: SignatureAlgorithm, spkiDer: Buffer, data: Buffer, signature: Buffer) => Promise<boolean>;

/**
 * `parseCsr` with its self-signature checked by `verify` (default: `verifySignatureAsync`, on libuv's
 * thread pool): the same result and the same errors, with the event loop free while it is checked.
 */
export async function parseVerifiedCsr(input: string | Buffer, verify: AsyncVerify = verifySignatureAsync): Promise<ParsedCsr> {
  const { parsed, info, signature } = readCsr(input);
  if (!(await verify(parsed.signatureAlgorithm, parsed.publicKey.der, info, signature))) throw invalidCsrSignature();
  return parsed;
}

/**
 * Only the SubjectPublicKeyInfo (DER) of a CSR, read with the TLV walker and nothing else: for a CSR
 * that `parseCsr` has already accepted (the order worker signs requests checked when they arrived).
 */
export function csrPublicKeyDer(input: string | Buffer): Buffer {
  const der = csrDer(input);
  const { infoFields } = readCsrInfo(der);
  if (infoFields[2].tag !== 0x30) throw parseError('CertificationRequestInfo: malformed');
  return slice(der, infoFields[2]);
}

/** `[0] IMPLICIT SET OF Attribute`; only extensionRequest is interpreted. */
function readAttributes(node: Node): Extension[] {
  if (contextTag(node) !== 0 || !node.constructed || !Array.isArray(node.value)) {
    throw parseError('CSR attributes: malformed');
  }
  let extensions: Extension[] = [];
  let seen = false;
  for (const attr of node.value as Node[]) {
    const [typeNode, values] = readSequence(attr, 'CSR attribute');
    const type = readOid(typeNode, 'CSR attribute type');
    const set = readSet(values, 'CSR attribute values');
    if (type !== OID_EXTENSION_REQUEST) continue;
    if (seen || set.length !== 1) throw parseError('CSR: more than one extensionRequest');
    seen = true;
    extensions = readSequence(set[0], 'CSR extensionRequest').map(decodeRequestedExtension);
  }
  return extensions;
}

/**
 * One requested extension. A value our codecs cannot read is kept as `unknown` (docs/COMPATIBILITY.md §2)
 * rather than refusing the whole CSR: the request's extensions are informative only (the signed
 * certificate's extensions come from the API request, profile and CA).
 */
function decodeRequestedExtension(node: Node): Extension {
  try {
    return decodeExtensionNode(node);
  } catch (e) {
    if (!(e instanceof X509Error)) throw e;
    const parts = readSequence(node, 'CSR extension');
    const oid = readOid(parts[0], 'CSR extension');
    const critical = parts.length === 3 && parts[1].type === Type.BOOLEAN ? readBoolean(parts[1]) : false;
    const value = readOctets(parts[parts.length - 1], 'CSR extension value');
    return { type: 'unknown', critical, value: { oid, value: value.toString('base64') } };
  }
}
