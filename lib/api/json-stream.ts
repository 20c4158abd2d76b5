/**
 * Streamed JSON answers (docs/DESIGN.md "Inventory"): unpaged lists go to the socket batch by batch
 * instead of being built whole in memory, so memory stays flat however long the list is. The
 * back-pressure, a client that goes away and errors after the first chunk are the kit's
 * (lib/http/streamed-body.ts); this file makes the JSON array's chunks.
 */
import type { Response } from 'express';
import { writeJsonHead } from '../http/send';
import { sendStreamedBody } from '../http/streamed-body';

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

/** Write `chunks` as the body of a JSON answer, streamed (lib/http/streamed-body.ts). */
export function sendJsonStream(
  res: Response,
  status: number,
  headers: Record<string, string>,
  chunks: AsyncIterable<string | Buffer>,
): Promise<void> {
  return sendStreamedBody(res, () => writeJsonHead(res, status, headers), chunks);
}
