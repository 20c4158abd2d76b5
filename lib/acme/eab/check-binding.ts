/**
 * Checking an external account binding (RFC 8555 §7.3.4): the newAccount payload's
 * `externalAccountBinding` is a JWS whose protected header names a MAC algorithm (HS256/384/512), the
 * key id the operator handed out and the newAccount URL, whose payload is the account key itself, and
 * whose MAC verifies with that key id's MAC key. Returns the key id to bind.
 */
import crypto from 'crypto';
import type { AcmeStore, SecretBox } from '../../ports';
import { isJsonObject, ownMember } from '../encoding';
import type { PublicJwk } from '../jwk';
import { jwkThumbprint, publicKeyFromJwk } from '../jwk';
import { malformed, unauthorized } from '../problems';

const MAC_HASHES: Readonly<Record<string, string>> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

function encodedPart(binding: unknown, name: string): string {
  const value = isJsonObject(binding) ? ownMember(binding, name) : undefined;
  if (typeof value !== 'string') throw malformed('"externalAccountBinding" must be a JWS in the flattened JSON serialization.');
  return value;
}

function headerOf(protectedB64: string): Record<string, unknown> {
  try {
    const header = JSON.parse(Buffer.from(protectedB64, 'base64url').toString('utf8')) as unknown;
    if (isJsonObject(header)) return header;
  } catch {
    // answered below
  }
  throw malformed('The external account binding has no readable protected header.');
}

export async function checkedEabKid(
  binding: unknown,
  context: { url: string; accountJwk: PublicJwk; caId: number; acme: AcmeStore; box: SecretBox | null },
): Promise<string> {
  const protectedB64 = encodedPart(binding, 'protected');
  const payloadB64 = encodedPart(binding, 'payload');
  const signatureB64 = encodedPart(binding, 'signature');
  const header = headerOf(protectedB64);
  const alg = ownMember(header, 'alg');
  const kid = ownMember(header, 'kid');
  const hash = typeof alg === 'string' && Object.hasOwn(MAC_HASHES, alg) ? MAC_HASHES[alg] : null;
  if (!hash) throw malformed('The external account binding must be MACed with HS256, HS384 or HS512.');
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 64) throw malformed('The external account binding has no "kid".');
  if (ownMember(header, 'nonce') !== undefined) throw malformed('The external account binding must not have a nonce.');
  if (ownMember(header, 'url') !== context.url) throw malformed('The external account binding must name the newAccount URL.');
  let bound: PublicJwk;
  try {
    bound = publicKeyFromJwk(JSON.parse(Buffer.from(payloadB64, 'base64url').toString('utf8'))).jwk;
  } catch {
    throw malformed("The external account binding's payload must be the account key.");
  }
  if (jwkThumbprint(bound) !== jwkThumbprint(context.accountJwk)) {
    throw unauthorized('The external account binding binds another key.');
  }
  const key = await context.acme.findEabKey(context.caId, kid);
  if (!key || key.accountId !== null || !context.box) throw unauthorized('The external account binding key is unknown or already used.');
  let secret: Buffer;
  try {
    secret = context.box.open(key.sealed);
  } catch {
    // Sealed under another key-encryption key (after `ca-admin rotate_kek`), or damaged: the operator makes a new one.
    throw unauthorized('The external account binding key cannot be used any more; ask for a new one.');
  }
  const expected = crypto.createHmac(hash, secret).update(`${protectedB64}.${payloadB64}`).digest();
  const given = Buffer.from(signatureB64, 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    throw unauthorized("The external account binding's MAC does not verify.");
  }
  return kid;
}
