/**
 * Streamed JSON answers (docs/DESIGN.md "Inventory"): unpaged lists go to the socket batch by batch
 * instead of being built whole in memory, so memory stays flat however long the list is.
 *
 * - Back-pressure: once more than `MAX_BUFFERED` bytes wait for the socket, the next chunk is not
 *   asked for until they have drained, so the database is read only as fast as the client reads.
 *   (The stream's own high-water mark, 16 KiB, would cost an event-loop turn per chunk.)
 * - A client that goes away ends the source (`return()` on its iterator, which ends the query).
 * - Headers go out with the first chunk: an error before it (the first batch's query) is still an
 *   ordinary JSON error answer; an error after it can only cut the connection, which the error catch
 *   does (lib/http/error-catch.ts).
 */
import type { Response } from 'express';
import { writeJsonHead } from '../http/send';

/** Bytes an answer may have waiting for the socket before its source is paused. */
export const MAX_BUFFERED = 1024 * 1024;

/**
 * Bytes per chunk written. Chunks are Buffers: their memory is outside V8's heap and is returned as
 * soon as the small Buffer object dies young, so they can be large (few writes per answer) without
 * growing the heap.
 */
export const CHUNK_BYTES = 256 * 1024;

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** One JSON array of these UTF-8 JSON items. */
export function jsonArrayBuffer(items: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [OPEN];
  items.forEach((item, i) => parts.push(...(i === 0 ? [item] : [COMMA, item])));
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** `[`, the items joined by commas, `]`, in chunks of at most `CHUNK_BYTES` (an item longer than that in one of its own). */
export async function* jsonArrayChunks(batches: AsyncIterable<readonly Buffer[]>): AsyncGenerator<Buffer> {
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  chunk[0] = OPEN[0];
  let used = 1;
  let first = true;
  for await (const batch of batches) {
    for (const item of batch) {
      if (!first) {
        if (used === chunk.length) {
          yield chunk;
          chunk = Buffer.allocUnsafe(CHUNK_BYTES);
          used = 0;
        }
        chunk[used++] = COMMA[0];
      }
      first = false;
      if (used + item.length > chunk.length) {
        if (used > 0) yield chunk.subarray(0, used);
        chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        used = 0;
        if (item.length > chunk.length) {
          yield item;
          continue;
        }
      }
      used += item.copy(chunk, used);
    }
  }
  if (used === chunk.length) {
    yield chunk;
    chunk = Buffer.allocUnsafe(1);
    used = 0;
  }
  chunk[used++] = CLOSE[0];
  yield chunk.subarray(0, used);
}

/**
 * Write `chunks` as the body of a JSON answer. Resolves when the body is complete or the client went
 * away (then the source has been ended); rejects when the source fails (after the first chunk the
 * caller must destroy the connection: the status line is gone).
 */
export async function sendJsonStream(
  res: Response,
  status: number,
  headers: Record<string, string>,
  chunks: AsyncIterable<string | Buffer>,
): Promise<void> {
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
        writeJsonHead(res, status, headers);
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
    if (!started) writeJsonHead(res, status, headers);
    res.end();
  } finally {
    res.off('close', onClose);
    res.off('drain', onDrain);
    // Ends the source's query when we stopped early (client gone, or a failure of ours).
    if (gone) await iterator.return?.();
  }
}
