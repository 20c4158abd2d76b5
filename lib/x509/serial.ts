/** Certificate serial numbers (docs/COMPATIBILITY.md §3). */
import { randomFillSync } from 'crypto';

const SERIAL_BYTES = 20;

/**
 * Random bytes are drawn from the CSPRNG in batches: one `randomFillSync` call costs about as much for
 * 5 KiB as for 20 bytes, and a CA may issue thousands of certificates a second (Node's `randomUUID`
 * pools the same way). Each byte is handed out once.
 */
const pool = Buffer.alloc(SERIAL_BYTES * 256);
let offset = pool.length;

function randomSerialBytes(): Buffer {
  if (offset + SERIAL_BYTES > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + SERIAL_BYTES);
  offset += SERIAL_BYTES;
  return bytes;
}

/**
 * A fresh random serial as upstream makes it: 20 random bytes read as a big-endian integer, shifted
 * right by one bit. The result is positive, below 2^159 and so always fits the 20 octets RFC 5280
 * allows (the top bit of the first octet is clear, so DER needs no leading zero).
 */
export function randomSerial(): bigint {
  for (;;) {
    const serial = BigInt('0x' + randomSerialBytes().toString('hex')) >> 1n;
    if (serial !== 0n) return serial; // RFC 5280 wants a positive number; 0 has probability 2^-159
  }
}
