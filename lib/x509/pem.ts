/**
 * PEM (RFC 7468) reading and writing.
 *
 * Reading is a hand-written linear scan rather than one big regular expression, so that hostile input
 * (thousands of BEGIN lines, no END) costs linear time. Text around the blocks (e.g. the output of
 * `openssl x509 -text`) is ignored; the first block with exactly the requested label wins.
 */
import { X509Error, parseError } from './errors';

/** Default limit for `derFromInput`: far above any real certificate or CSR, far below a DoS. */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024;

const BEGIN = '-----BEGIN ';
const DASHES = '-----';
const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;

interface PemBlock {
  label: string;
  body: string;
}

/** Iterate over the PEM blocks of `text`; throws on a BEGIN without its END. */
function* pemBlocks(text: string): Generator<PemBlock> {
  let pos = 0;
  for (;;) {
    const begin = text.indexOf(BEGIN, pos);
    if (begin < 0) return;
    const labelStart = begin + BEGIN.length;
    const labelEnd = text.indexOf(DASHES, labelStart);
    const lineEnd = text.indexOf('\n', labelStart);
    if (labelEnd < 0 || (lineEnd >= 0 && lineEnd < labelEnd)) {
      throw parseError('PEM: malformed BEGIN line');
    }
    const label = text.slice(labelStart, labelEnd);
    const endMarker = `-----END ${label}-----`;
    const bodyStart = labelEnd + DASHES.length;
    const end = text.indexOf(endMarker, bodyStart);
    if (end < 0) throw parseError(`PEM: "-----BEGIN ${label}-----" without matching END line`);
    yield { label, body: text.slice(bodyStart, end) };
    pos = end + endMarker.length;
  }
}

function decodeBody(block: PemBlock): Buffer {
  if (block.body.includes(':')) {
    // RFC 1421 headers (Proc-Type/DEK-Info): a legacy encrypted block, not plain DER.
    throw parseError(`PEM: ${block.label} block has headers (encrypted or legacy PEM is not supported)`);
  }
  const b64 = block.body.replace(/[ \t\r\n]+/g, '');
  if (b64.length % 4 !== 0 || !BASE64_BODY.test(b64)) throw parseError(`PEM: ${block.label} block is not valid base64`);
  const der = Buffer.from(b64, 'base64');
  if (der.length === 0) throw parseError(`PEM: ${block.label} block is empty`);
  return der;
}

/** DER from the first PEM block labelled exactly `label`; anything else → X509Error('parse'). */
export function pemDecode(text: string, label: string): Buffer {
  const found: string[] = [];
  for (const block of pemBlocks(text)) {
    if (block.label === label) return decodeBody(block);
    found.push(block.label);
  }
  if (found.length === 0) throw parseError(`expected PEM "${label}", found no PEM data`);
  throw parseError(`expected PEM "${label}", found ${found.map((l) => `"${l}"`).join(', ')}`);
}

/** PEM text: 64-character base64 lines, '\n' line ends, trailing '\n'. */
export function pemEncode(der: Buffer, label: string): string {
  const b64 = der.toString('base64');
  let body = '';
  for (let i = 0; i < b64.length; i += 64) body += b64.slice(i, i + 64) + '\n';
  return `-----BEGIN ${label}-----\n${body}-----END ${label}-----\n`;
}

/** True when bytes look like PEM text rather than DER (DER never starts with '-' or whitespace). */
function looksLikePem(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length && i < 1024; i++) {
    const b = bytes[i];
    if (b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a) continue;
    return b === 0x2d; // '-'
  }
  return false;
}

/**
 * DER of a certificate/CSR given as PEM text or as DER bytes (a Buffer holding PEM text works too).
 * Inputs above `maxBytes` are refused before any parsing → X509Error('too-large').
 */
export function derFromInput(input: string | Buffer, label: string, maxBytes = DEFAULT_MAX_INPUT_BYTES): Buffer {
  const size = typeof input === 'string' ? input.length : input.length;
  if (size > maxBytes) throw new X509Error('too-large', `input of ${size} bytes exceeds the limit of ${maxBytes}`);
  if (typeof input === 'string') return pemDecode(input, label);
  if (looksLikePem(input)) return pemDecode(input.toString('latin1'), label);
  if (input.length === 0) throw parseError(`${label}: empty input`);
  return input;
}
