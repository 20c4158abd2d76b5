/**
 * ACME account keys as JSON Web Keys (RFC 7517, RFC 7518 §6, RFC 8037): the `jwk` of a JWS protected
 * header (RFC 8555 §6.2) turned into a Node `KeyObject`, its RFC 7638 thumbprint, and the key
 * authorization of challenges (RFC 8555 §8.1).
 *
 * Only public signing keys of the kinds a JWS of lib/acme/jws.ts can verify are accepted; anything
 * else is `badPublicKey` (RFC 8555 §6.7). The accepted JWK comes back reduced to its required
 * members, the form the thumbprint is computed on and the one worth storing with an account.
 */
import * as crypto from 'crypto';
import { decodeBase64url, isJsonObject, ownMember } from './encoding';
import { badPublicKey, malformed, quoted } from './problems';

export type EcCurve = 'P-256' | 'P-384' | 'P-521';

/** A public key as a JWK with its required members only (RFC 7638 §3.2), the form kept here. */
export type PublicJwk =
  | { kty: 'RSA'; n: string; e: string }
  | { kty: 'EC'; crv: EcCurve; x: string; y: string }
  | { kty: 'OKP'; crv: 'Ed25519' | 'Ed448'; x: string };

/** Bytes of one coordinate (RFC 7518 §6.2.1.2: the full size, leading zeros kept). */
export const EC_COORDINATE_BYTES: Readonly<Record<EcCurve, number>> = { 'P-256': 32, 'P-384': 48, 'P-521': 66 };

export const MIN_RSA_BITS = 2048;
export const MAX_RSA_BITS = 8192;
/** Public key sizes of the EdDSA curves (RFC 8032 §5.1.5, §5.2.5). */
const OKP_BYTES = { Ed25519: 32, Ed448: 57 } as const;
/**
 * Public exponents beyond 32 bits only make each verification slower (real keys use 65537), and a
 * client picks the exponent: the bound keeps a request's cost bounded.
 */
const MAX_RSA_EXPONENT_BYTES = 4;

/** Members that only a private or symmetric key has (RFC 7518 §6.3.2, §6.2.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** The bytes of a required base64url member of the JWK, or badPublicKey. */
function bytesOf(jwk: Record<string, unknown>, name: string): Buffer {
  const value = ownMember(jwk, name);
  if (typeof value !== 'string') throw badPublicKey(`The JWK has no "${name}" string.`);
  const bytes = decodeBase64url(value);
  if (!bytes || bytes.length === 0) throw badPublicKey(`The JWK member "${name}" is not base64url (RFC 7515 §2).`);
  return bytes;
}

/**
 * Keys already made, by their canonical JWK: every request of an account imports the account's key
 * again (an EC point check each time, a few per cent of a request's CPU). Only valid keys are kept;
 * the oldest goes when the map is full.
 */
const KEY_CACHE_SIZE = 1000;
const keyCache = new Map<string, crypto.KeyObject>();

/** Node's own checks of the key (EC points on their curve included), as badPublicKey. */
function keyObject(jwk: PublicJwk): crypto.KeyObject {
  const canonical = thumbprintInput(jwk);
  const cached = keyCache.get(canonical);
  if (cached) return cached;
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw badPublicKey(`The JWK is not a valid ${jwk.kty} public key.`);
  }
  if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(canonical, key);
  return key;
}

/** The integer's octets without prepended zeros (an empty buffer for zero). */
function minimal(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

function rsaKey(jwk: Record<string, unknown>): PublicJwk {
  // RFC 7518 §6.3.1.1 asks for the minimal encoding, yet some libraries prepend a zero octet to the
  // modulus; RFC 8555 §8.1 strips such zeros before the thumbprint. Kept in the reduced JWK too, so
  // that one key has one form and one thumbprint (and so one account).
  const n = minimal(bytesOf(jwk, 'n'));
  const e = minimal(bytesOf(jwk, 'e'));
  const bits = n.length === 0 ? 0 : (n.length - 1) * 8 + (32 - Math.clz32(n[0]));
  if (bits < MIN_RSA_BITS || bits > MAX_RSA_BITS) {
    throw badPublicKey(`RSA keys must have ${MIN_RSA_BITS} to ${MAX_RSA_BITS} bits; this one has ${bits}.`);
  }
  if ((n[n.length - 1] & 1) === 0) throw badPublicKey('The RSA modulus is even.');
  // Node accepts any exponent, even 1 (which makes every "signature" the message itself).
  const exponent = e.length > 0 && e.length <= MAX_RSA_EXPONENT_BYTES ? e.readUIntBE(0, e.length) : 0;
  if (exponent < 3 || exponent % 2 === 0) throw badPublicKey('The RSA public exponent must be odd, at least 3 and at most 32 bits.');
  return { kty: 'RSA', n: n.toString('base64url'), e: e.toString('base64url') };
}

function ecKey(jwk: Record<string, unknown>): PublicJwk {
  const crv = ownMember(jwk, 'crv');
  if (crv !== 'P-256' && crv !== 'P-384' && crv !== 'P-521') {
    throw badPublicKey(`Unsupported EC curve ${quoted(crv)}: P-256, P-384 and P-521 are.`);
  }
  const x = bytesOf(jwk, 'x');
  const y = bytesOf(jwk, 'y');
  const size = EC_COORDINATE_BYTES[crv];
  if (x.length !== size || y.length !== size) throw badPublicKey(`The ${crv} coordinates must be ${size} octets each (RFC 7518 §6.2.1).`);
  return { kty: 'EC', crv, x: x.toString('base64url'), y: y.toString('base64url') };
}

function okpKey(jwk: Record<string, unknown>): PublicJwk {
  const crv = ownMember(jwk, 'crv');
  if (crv !== 'Ed25519' && crv !== 'Ed448') throw badPublicKey(`Unsupported OKP curve ${quoted(crv)}: Ed25519 and Ed448 are (RFC 8037).`);
  const x = bytesOf(jwk, 'x');
  if (x.length !== OKP_BYTES[crv]) throw badPublicKey(`An ${crv} key is ${OKP_BYTES[crv]} octets (RFC 8037 §2).`);
  return { kty: 'OKP', crv, x: x.toString('base64url') };
}

/**
 * The public key of a JWK from a request. Members other than the required ones (`alg`, `use`, `kid`,
 * …) are ignored (RFC 7517 §4), except the private ones: a client that sends its private key has
 * leaked it, and the server should not become one more place that keeps it.
 */
export function publicKeyFromJwk(jwk: unknown): { key: crypto.KeyObject; jwk: PublicJwk } {
  if (!isJsonObject(jwk)) throw malformed('The "jwk" header parameter is not a JSON object.');
  const kty = ownMember(jwk, 'kty');
  if (typeof kty !== 'string') throw badPublicKey('The JWK has no "kty" string.');
  const secret = PRIVATE_MEMBERS.filter((name) => Object.hasOwn(jwk, name));
  if (secret.length > 0) throw badPublicKey(`The JWK holds private key members (${secret.join(', ')}); send the public key only.`);
  let reduced: PublicJwk;
  switch (kty) {
    case 'RSA':
      reduced = rsaKey(jwk);
      break;
    case 'EC':
      reduced = ecKey(jwk);
      break;
    case 'OKP':
      reduced = okpKey(jwk);
      break;
    case 'oct':
      throw badPublicKey('Symmetric ("oct") keys cannot sign ACME requests (RFC 8555 §6.2).');
    default:
      throw badPublicKey(`Unsupported key type ${quoted(kty)}: RSA, EC and OKP are.`);
  }
  return { key: keyObject(reduced), jwk: reduced };
}

/** The members RFC 7638 §3.2 hashes, in lexicographic order, as its canonical JSON (no white space). */
function thumbprintInput(jwk: PublicJwk): string {
  switch (jwk.kty) {
    case 'RSA':
      return JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n });
    case 'EC':
      return JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
    case 'OKP':
      return JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  }
}

/** The JWK SHA-256 thumbprint (RFC 7638 §3), base64url: what RFC 8555 §8.1 puts in key authorizations. */
export function jwkThumbprint(jwk: PublicJwk): string {
  return crypto.createHash('sha256').update(thumbprintInput(jwk), 'utf8').digest('base64url');
}

/** The key authorization of a challenge token (RFC 8555 §8.1): `token || '.' || thumbprint`. */
export function keyAuthorization(token: string, jwk: PublicJwk): string {
  return `${token}.${jwkThumbprint(jwk)}`;
}
