/**
 * The floor of a CRL's number: the time it is built, in milliseconds since 1970.
 *
 * RFC 5280 §5.2.3 wants a CA's CRL numbers (per scope) to increase monotonically and allows any
 * integer up to 20 octets. The store hands out the last number + 1, or this floor when it is higher
 * (lib/ports/revocation.ts `nextCrlNumber`). Counting alone would break after a restore: a database
 * restored from last week's backup would count on from last week's number and publish numbers that
 * relying parties have already seen (docs/operations/backup-restore.md). With the time as the floor,
 * the next CRL after a restore is numbered above every CRL published before it, as long as the clock
 * is right and the database did not build, on average, more than one CRL per millisecond between the
 * backup and the last CRL before the restore. Within one database the numbers rise whatever the
 * clock does (the last + 1), so a clock set back never makes a number repeat.
 */
export function crlNumberFloor(builtAt: Date): bigint {
  const ms = Math.floor(builtAt.getTime());
  return Number.isFinite(ms) && ms > 0 ? BigInt(ms) : 1n;
}
