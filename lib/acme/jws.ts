/**
 * The JWS of every ACME POST (RFC 8555 §6.2): the flattened JSON serialization of RFC 7515 §7.2.2
 * with RFC 8555's restrictions, parsed (`parseJws`; `parseFlattenedJws` without the ACME header
 * rules) and then verified with the key it names (`verifyJws`: the `jwk` it carries, or the account
 * key its `kid` names, which the caller looks up).
 *
 * What stays with the caller: consuming the nonce (RFC 8555 §6.5), comparing `url` with the request
 * URL (§6.4, `unauthorized`), and whether the request needed `jwk` (newAccount, revokeCert) or `kid`.
 *
 * Every refusal is an AcmeProblem, whatever the body: the parser bounds each input before it looks at
 * it, and the fuzz test of test/acme/jws.test.ts holds it to that.
 */
import * as crypto from 'crypto';
import { TextDecoder } from 'util';
import { decodeBase64url, isJsonObject, ownMember as member } from './encoding';
import { EC_COORDINATE_BYTES, publicKeyFromJwk, type PublicJwk } from './jwk';
import { badNonce, badSignatureAlgorithm, malformed, quoted } from './problems';

/** The `alg` values this server verifies (RFC 7518 §3.1, RFC 8037 §3.1), for badSignatureAlgorithm. */
export const SUPPORTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type JwsAlgorithm = (typeof SUPPORTED_ALGORITHMS)[number];

/** A whole JWS, as JSON text or as the total of its three members. ACME requests are small. */
export const MAX_JWS_BYTES = 64 * 1024;
/** The decoded protected header: a JWK of an 8192-bit RSA key is about 1.4 KiB. */
export const MAX_PROTECTED_HEADER_BYTES = 8 * 1024;
/** Nesting of the payload's JSON: ACME objects are a few levels deep, the code that reads them may recurse. */
export const MAX_PAYLOAD_DEPTH = 32;

type AlgorithmSpec =
  | { kty: 'rsa'; hash: string; pssSaltLength?: number }
  | { kty: 'ec'; hash: string; namedCurve: string; coordinate: number }
  | { kty: 'eddsa' };

const rsa = (hash: string, pssSaltLength?: number): AlgorithmSpec => ({ kty: 'rsa', hash, pssSaltLength });
const ec = (hash: string, namedCurve: string, coordinate: number): AlgorithmSpec => ({ kty: 'ec', hash, namedCurve, coordinate });

/**
 * What each `alg` means. RSASSA-PSS uses MGF1 with the same hash and a salt as long as the hash
 * (RFC 7518 §3.5); ECDSA names one curve per hash (RFC 7518 §3.4); EdDSA with an Ed25519 or Ed448
 * key (RFC 8037 §3.1) hashes nothing itself.
 */
const ALGORITHMS: Readonly<Record<JwsAlgorithm, AlgorithmSpec>> = {
  RS256: rsa('sha256'),
  RS384: rsa('sha384'),
  RS512: rsa('sha512'),
  PS256: rsa('sha256', 32),
  PS384: rsa('sha384', 48),
  PS512: rsa('sha512', 64),
  // Node's names of P-256, P-384 and P-521; coordinates as in lib/acme/jwk.ts.
  ES256: ec('sha256', 'prime256v1', EC_COORDINATE_BYTES['P-256']),
  ES384: ec('sha384', 'secp384r1', EC_COORDINATE_BYTES['P-384']),
  ES512: ec('sha512', 'secp521r1', EC_COORDINATE_BYTES['P-521']),
  EdDSA: { kty: 'eddsa' },
};

const isSupported = (alg: string): alg is JwsAlgorithm => (SUPPORTED_ALGORITHMS as readonly string[]).includes(alg);

/** How the request names its key (RFC 8555 §6.2): the key itself, or the URL of an account. */
export type JwsSigner = { kind: 'jwk'; jwk: PublicJwk; key: crypto.KeyObject } | { kind: 'kid'; kid: string };

/**
 * A JWS in the flattened JSON serialization as RFC 8555 §6.2 restricts it, before any ACME header
 * rule: also the shape of the inner JWS of a key change (RFC 8555 §7.3.5), which has no nonce.
 */
export interface FlattenedJws {
  readonly alg: JwsAlgorithm;
  /** The whole protected header, as parsed (for the members a handler may want beyond these). */
  readonly header: Readonly<Record<string, unknown>>;
  /** The three members as received: the signature is over these exact strings. */
  readonly encoded: { readonly protected: string; readonly payload: string; readonly signature: string };
  /** ASCII(BASE64URL(protected) || '.' || BASE64URL(payload)) (RFC 7515 §5.2). */
  readonly signingInput: Buffer;
  readonly signature: Buffer;
  readonly payloadBytes: Buffer;
}

/** The JWS of an ACME request (RFC 8555 §6.2), its payload parsed. */
export interface ParsedJws extends FlattenedJws {
  readonly nonce: string;
  readonly url: string;
  readonly signer: JwsSigner;
  /** The payload's JSON value; undefined for a POST-as-GET (RFC 8555 §6.3: an empty payload). */
  readonly payload: unknown;
  readonly postAsGet: boolean;
}

const MEMBERS = ['protected', 'payload', 'signature'] as const;
// Fatal: text that is not UTF-8 is refused, not patched with U+FFFD. A byte-order mark is kept, so
// JSON.parse refuses it too (RFC 8259 §8.1: senders must not add one).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** JSON from bytes that must be UTF-8 (RFC 8259 §8.1), or the `malformed` problem naming `what`. */
function jsonOf(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(UTF8.decode(bytes));
  } catch {
    throw malformed(`${what} is not UTF-8 JSON.`);
  }
}

/** Deepest nesting of arrays and objects in JSON text (strings skipped): checked before parsing. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') deepest = Math.max(deepest, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return deepest;
}

/** The body as a JSON object: already parsed by a body parser, or still JSON text (string or bytes). */
function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const size = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
    if (size > MAX_JWS_BYTES) throw malformed(`The JWS is larger than ${MAX_JWS_BYTES} bytes.`);
    body = jsonOf(typeof body === 'string' ? Buffer.from(body, 'utf8') : body, 'The request body');
  }
  if (!isJsonObject(body)) throw malformed('The request body is not a JWS in the flattened JSON serialization (RFC 8555 §6.2).');
  return body;
}

/** The three members, each a string, and nothing else (RFC 8555 §6.2). */
function flattened(body: Record<string, unknown>): { protected: string; payload: string; signature: string } {
  if (Object.hasOwn(body, 'signatures')) {
    throw malformed('A JWS must have one signature, in the flattened JSON serialization (RFC 8555 §6.2).');
  }
  if (Object.hasOwn(body, 'header')) throw malformed('The JWS Unprotected Header is not allowed (RFC 8555 §6.2).');
  const extra = Object.keys(body).filter((name) => !(MEMBERS as readonly string[]).includes(name));
  if (extra.length > 0) throw malformed(`Unexpected JWS member ${quoted(extra[0])}: only protected, payload and signature.`);
  const [protectedText, payload, signature] = MEMBERS.map((name) => member(body, name));
  if (typeof protectedText !== 'string') throw malformed('The JWS has no "protected" string (RFC 8555 §6.2).');
  if (typeof payload !== 'string') throw malformed('The JWS has no "payload" string; a detached payload is not allowed (RFC 8555 §6.2).');
  if (typeof signature !== 'string') throw malformed('The JWS has no "signature" string (RFC 8555 §6.2).');
  if (protectedText.length + payload.length + signature.length > MAX_JWS_BYTES) {
    throw malformed(`The JWS is larger than ${MAX_JWS_BYTES} bytes.`);
  }
  return { protected: protectedText, payload, signature };
}

function base64urlMember(text: string, name: string): Buffer {
  const bytes = decodeBase64url(text);
  if (!bytes) throw malformed(`The JWS member "${name}" is not base64url without padding (RFC 7515 §2).`);
  return bytes;
}

function protectedHeader(text: string): Record<string, unknown> {
  // Bound the text before decoding it: 4 characters per 3 bytes.
  if (text.length > Math.ceil((MAX_PROTECTED_HEADER_BYTES * 4) / 3)) {
    throw malformed(`The JWS protected header is larger than ${MAX_PROTECTED_HEADER_BYTES} bytes.`);
  }
  const bytes = base64urlMember(text, 'protected');
  if (bytes.length === 0) throw malformed('The JWS protected header is empty (RFC 8555 §6.2).');
  // JSON.parse keeps the last of duplicate names, which RFC 7515 §4 allows a recipient to do.
  const header = jsonOf(bytes, 'The JWS protected header');
  if (!isJsonObject(header)) throw malformed('The JWS protected header is not a JSON object (RFC 7515 §4).');
  return header;
}

function algorithm(header: Record<string, unknown>): JwsAlgorithm {
  const alg = member(header, 'alg');
  if (typeof alg !== 'string') throw malformed('The protected header has no "alg" string (RFC 8555 §6.2).');
  if (isSupported(alg)) return alg;
  // RFC 8555 §6.2: never "none" (anyone could sign) nor a MAC (the server holds no shared secret).
  const why = alg === 'none' || /^HS\d+$/.test(alg) ? 'must not be "none" or a MAC algorithm (RFC 8555 §6.2)' : 'is not supported';
  throw badSignatureAlgorithm(`The JWS algorithm ${quoted(alg)} ${why}.`, SUPPORTED_ALGORITHMS);
}

/** Extensions: none is understood here (RFC 7515 §4.1.11), and RFC 8555 §6.2 bans RFC 7797's `b64`. */
function noExtensions(header: Record<string, unknown>): void {
  if (Object.hasOwn(header, 'crit')) throw malformed('No JWS extension ("crit", RFC 7515 §4.1.11) is understood by this server.');
  if (member(header, 'b64') === false) throw malformed('The JWS Unencoded Payload Option (RFC 7797) is not allowed (RFC 8555 §6.2).');
}

function signer(header: Record<string, unknown>): JwsSigner {
  const hasJwk = Object.hasOwn(header, 'jwk');
  const hasKid = Object.hasOwn(header, 'kid');
  if (hasJwk && hasKid) throw malformed('jwk and kid are mutually exclusive.');
  if (hasJwk) return { kind: 'jwk', ...publicKeyFromJwk(member(header, 'jwk')) };
  const kid = member(header, 'kid');
  if (!hasKid) throw malformed('The protected header needs "jwk" or "kid" (RFC 8555 §6.2).');
  if (typeof kid !== 'string' || kid === '') throw malformed('The "kid" header parameter must be an account URL (RFC 8555 §6.2).');
  return { kind: 'kid', kid };
}

function nonceOf(header: Record<string, unknown>): string {
  const nonce = member(header, 'nonce');
  // A missing nonce is badNonce, a nonce that is not even base64url is malformed (RFC 8555 §6.5, §6.5.2).
  if (nonce === undefined) throw badNonce('The protected header has no "nonce" (RFC 8555 §6.5).');
  if (typeof nonce !== 'string' || nonce === '' || !decodeBase64url(nonce)) {
    throw malformed('The "nonce" header parameter is not base64url (RFC 8555 §6.5.2).');
  }
  return nonce;
}

function urlOf(header: Record<string, unknown>): string {
  const url = member(header, 'url');
  if (typeof url !== 'string' || url === '') throw malformed('The protected header has no "url" string (RFC 8555 §6.4).');
  return url;
}

/** The payload's JSON value, or undefined for the empty payload of a POST-as-GET (RFC 8555 §6.3). */
function payloadJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  if (nesting(bytes.toString('latin1')) > MAX_PAYLOAD_DEPTH) {
    throw malformed(`The JWS payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels.`);
  }
  return jsonOf(bytes, 'The JWS payload');
}

/**
 * A JWS in the flattened JSON serialization (RFC 7515 §7.2.2) with RFC 8555 §6.2's restrictions on
 * it (one signature, no unprotected header, no detached or unencoded payload, an asymmetric `alg`),
 * its payload left as bytes. `body` is a body parser's JSON value, or the raw body (string or bytes).
 */
export function parseFlattenedJws(body: unknown): FlattenedJws {
  const encoded = flattened(bodyObject(body));
  const header = protectedHeader(encoded.protected);
  const alg = algorithm(header);
  noExtensions(header);
  return {
    alg,
    header,
    encoded,
    signingInput: Buffer.from(`${encoded.protected}.${encoded.payload}`, 'ascii'),
    signature: base64urlMember(encoded.signature, 'signature'),
    payloadBytes: base64urlMember(encoded.payload, 'payload'),
  };
}

/**
 * The JWS of an ACME request body (RFC 8555 §6.2): `parseFlattenedJws`, then the protected header's
 * `nonce`, `url` and exactly one of `jwk`/`kid`, and the payload as JSON (or empty). The signature is
 * not verified yet: `verifyJws`, once the caller has the key.
 */
export function parseJws(body: unknown): ParsedJws {
  const jws = parseFlattenedJws(body);
  const { header } = jws;
  return {
    ...jws,
    signer: signer(header),
    nonce: nonceOf(header),
    url: urlOf(header),
    payload: payloadJson(jws.payloadBytes),
    postAsGet: jws.payloadBytes.length === 0,
  };
}

/** Whether `key` is of the kind `alg` signs with (an RSA key of any size for RS*, PS*). */
function fits(spec: AlgorithmSpec, key: crypto.KeyObject): boolean {
  if (spec.kty === 'ec') return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === spec.namedCurve;
  if (spec.kty === 'eddsa') return key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448';
  return key.asymmetricKeyType === spec.kty;
}

/** The length of a valid signature: JOSE's ECDSA signatures are R || S at full size (RFC 7518 §3.4). */
function signatureLength(spec: AlgorithmSpec, key: crypto.KeyObject): number {
  if (spec.kty === 'rsa') return Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
  if (spec.kty === 'ec') return 2 * spec.coordinate;
  return key.asymmetricKeyType === 'ed448' ? 114 : 64;
}

function keyDescription(key: crypto.KeyObject): string {
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa') return `an RSA key of ${details?.modulusLength} bits`;
  if (key.asymmetricKeyType === 'ec') return `an EC key on ${details?.namedCurve}`;
  return `an ${key.asymmetricKeyType} key`;
}

function signatureVerifies(spec: AlgorithmSpec, key: crypto.KeyObject, data: Buffer, signature: Buffer): boolean {
  if (signature.length !== signatureLength(spec, key)) return false;
  try {
    switch (spec.kty) {
      case 'rsa': {
        const options = spec.pssSaltLength
          ? { key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: spec.pssSaltLength }
          : { key, padding: crypto.constants.RSA_PKCS1_PADDING };
        return crypto.verify(spec.hash, data, options, signature);
      }
      case 'ec':
        return crypto.verify(spec.hash, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
      case 'eddsa':
        return crypto.verify(null, data, key, signature);
    }
  } catch {
    // OpenSSL refuses some byte strings outright rather than saying "does not verify": same answer.
    return false;
  }
}

/**
 * Verifies the signature of a parsed JWS with the key it names. A key the algorithm does not fit
 * (ES256 with an RSA key, ES256 with a P-384 key, …) is badSignatureAlgorithm; a signature that does
 * not verify is malformed (RFC 8555 §6.2 has no problem type of its own for it).
 */
export function verifyJws(parsed: FlattenedJws, key: crypto.KeyObject): void {
  if (key.type === 'secret') throw new TypeError('verifyJws needs an asymmetric key');
  const spec = Object.hasOwn(ALGORITHMS, parsed.alg) ? ALGORITHMS[parsed.alg] : undefined;
  if (!spec || !fits(spec, key)) {
    const fitting = SUPPORTED_ALGORITHMS.filter((alg) => fits(ALGORITHMS[alg], key));
    const hint = fitting.length > 0 ? `; it signs with ${fitting.join(', ')}` : '';
    throw badSignatureAlgorithm(
      `The JWS algorithm ${quoted(parsed.alg)} does not fit the key, ${keyDescription(key)}${hint}.`,
      SUPPORTED_ALGORITHMS,
    );
  }
  if (!signatureVerifies(spec, key, parsed.signingInput, parsed.signature)) throw malformed('JWS signature invalid.');
}
