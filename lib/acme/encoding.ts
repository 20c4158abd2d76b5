/** The encodings of JOSE (RFC 7515 §2) and of JSON bodies that the JWS and JWK readers share. */

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The bytes of unpadded base64url text (RFC 7515 §2), or null when the text is anything else:
 * padding, the `+/` alphabet, white space, a length no encoding has, or trailing bits that are not
 * zero. Node's own decoder skips what it does not know, so two texts would otherwise decode to the
 * same bytes; the re-encoding check keeps one text per value.
 */
export function decodeBase64url(text: string): Buffer | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);

/** An own member only: an object parsed from JSON has no others, and an inherited `toString` is not one. */
export const ownMember = (object: Record<string, unknown>, name: string): unknown =>
  Object.hasOwn(object, name) ? object[name] : undefined;
