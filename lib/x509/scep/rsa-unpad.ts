/**
 * Removing RSAES-PKCS1-v1_5 padding from a decrypted key-transport block (RFC 8017 §7.2.2 step 3)
 * without telling anyone whether the padding was right: the Bleichenbacher countermeasure of RFC 3218
 * §2.3.2 and RFC 5246 §7.4.7.1 ("implicit rejection"). On any failure the caller gets a random key of
 * the expected length instead, decrypts the content with it, and fails there exactly as it would have
 * with a correctly padded wrong key — so a wrong padding and a wrong key give the same answer.
 *
 * Written without early exits or branches on the block's bytes, ending in a constant-time select. The
 * lengths (of the block and of the expected key) are public and may be branched on.
 */

/** 1 when x (a non-negative 31-bit integer) is 0, else 0. */
function isZero(x: number): number {
  return ((x | -x) >>> 31) ^ 1;
}

/** 1 when a and b (non-negative 31-bit integers) are equal, else 0. */
function isEqual(a: number, b: number): number {
  return isZero(a ^ b);
}

/** 1 when a < b (non-negative 31-bit integers), else 0. */
function isLess(a: number, b: number): number {
  return ((a - b) >>> 31) & 1;
}

/** `a` when bit is 1, `b` when it is 0. */
function select(bit: number, a: number, b: number): number {
  const mask = -bit;
  return (a & mask) | (b & ~mask);
}

/** RFC 8017 §7.2.2: EM = 0x00 ‖ 0x02 ‖ PS ‖ 0x00 ‖ M with PS at least eight nonzero octets. */
const MIN_PADDING = 11;

/**
 * M from `em` (the k-octet block a raw RSA decryption gave) when `em` is `00 02 PS 00 M` with PS of at
 * least 8 nonzero octets and M exactly `keyLength` octets; otherwise a copy of `randomKey` (which must
 * be `keyLength` octets, drawn fresh for each message by the caller).
 */
export function unpadPkcs1v15KeyTransport(em: Buffer, keyLength: number, randomKey: Buffer): Buffer {
  if (randomKey.length !== keyLength) throw new Error('unpadPkcs1v15KeyTransport: randomKey must be keyLength octets');
  const k = em.length;
  if (k < keyLength + MIN_PADDING) return Buffer.from(randomKey); // decided by public lengths alone

  let good = isZero(em[0]) & isEqual(em[1], 2);
  let lookingForSeparator = 1;
  let separator = 0;
  for (let i = 2; i < k; i++) {
    const zero = isZero(em[i]);
    separator = select(lookingForSeparator & zero, i, separator);
    lookingForSeparator &= zero ^ 1;
  }
  good &= lookingForSeparator ^ 1; // a separator was found
  good &= isLess(9, separator); // … after at least 8 octets of PS (index ≥ 10)
  good &= isEqual(k - separator - 1, keyLength); // … and M has the cipher's key length

  // M, if good, is the last keyLength octets: read from fixed positions whatever the outcome.
  const out = Buffer.alloc(keyLength);
  const mask = -good & 0xff;
  for (let j = 0; j < keyLength; j++) out[j] = (em[k - keyLength + j] & mask) | (randomKey[j] & ~mask & 0xff);
  return out;
}
