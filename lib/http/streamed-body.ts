/**
 * A body written as it is produced (docs/DESIGN.md "Inventory"): long answers — the REST API's
 * unpaged lists, the admin interface's CSV export — go to the socket chunk by chunk instead of being
 * built whole in memory, so memory stays flat however long they are.
 *
 * - Back-pressure: once more than `MAX_BUFFERED` bytes wait for the socket, the next chunk is not
 *   asked for until they have drained, so the database is read only as fast as the client reads.
 *   (The stream's own high-water mark, 16 KiB, would cost an event-loop turn per chunk.)
 * - A client that goes away ends the source (`return()` on its iterator, which ends the query).
 * - Headers go out with the first chunk: an error before it (the first batch's query) is still an
 *   ordinary error answer; an error after it can only cut the connection, which the error catch
 *   does (lib/http/error-catch.ts).
 */
import type { Response } from 'express';

/** Bytes an answer may have waiting for the socket before its source is paused. */
export const MAX_BUFFERED = 1024 * 1024;

/**
 * Write `chunks` as the body, `writeHead` (status and headers) just before the first one. Resolves
 * when the body is complete or the client went away (then the source has been ended); rejects when
 * the source fails (after the first chunk the caller must destroy the connection: the status line
 * is gone).
 */
export async function sendStreamedBody(res: Response, writeHead: () => void, chunks: AsyncIterable<string | Buffer>): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  let gone = res.destroyed || res.socket?.destroyed === true;
  let wake: (() => void) | null = null;
  const onClose = (): void => {
    if (!res.writableFinished) gone = true;
    wake?.();
  };
  const onDrain = (): void => wake?.();
  res.on('close', onClose);
  res.on('drain', onDrain);
  try {
    let started = false;
    while (!gone) {
      const next = await iterator.next();
      if (next.done || gone) break;
      if (!started) {
        writeHead();
        started = true;
      }
      res.write(next.value);
      if (res.writableLength > MAX_BUFFERED && !gone) {
        // Wait for the socket to take the buffered data, or for the client to leave.
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = null;
      }
    }
    if (gone) return;
    if (!started) writeHead();
    res.end();
  } finally {
    res.off('close', onClose);
    res.off('drain', onDrain);
    // Ends the source's query when we stopped early (client gone, or a failure of ours).
    if (gone) await iterator.return?.();
  }
}
