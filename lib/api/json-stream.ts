/**
 * Streamed JSON answers (docs/DESIGN.md "Inventory"): unpaged lists go to the socket batch by batch
 * instead of being built whole in memory, so memory stays flat however long the list is.
 *
 * - Back-pressure: after a write the socket's buffer refuses, the next batch is not asked for until
 *   it has drained, so the database is read only as fast as the client reads.
 * - A client that goes away ends the source (`return()` on its iterator, which ends the query).
 * - Headers go out with the first chunk: an error before it (the first batch's query) is still an
 *   ordinary JSON error answer; an error after it can only cut the connection, which the router does.
 */
import type { Response } from 'express';

/** `[`, the items of each batch joined by commas (one chunk per batch), `]`. */
export async function* jsonArrayChunks(batches: AsyncIterable<readonly string[]>): AsyncGenerator<string> {
  let first = true;
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    const body = batch.join(',');
    yield first ? `[${body}` : `,${body}`;
    first = false;
  }
  yield first ? '[]' : ']';
}

/** Items in batches mapped to JSON texts, lazily. */
export async function* mapBatches<T>(batches: AsyncIterable<readonly T[]>, toText: (item: T) => string): AsyncGenerator<string[]> {
  for await (const batch of batches) yield batch.map(toText);
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
  chunks: AsyncIterable<string>,
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
        writeHead(res, status, headers);
        started = true;
      }
      if (!res.write(next.value) && !gone) {
        // Wait for the socket to take the buffered data, or for the client to leave.
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = null;
      }
    }
    if (gone) return;
    if (!started) writeHead(res, status, headers);
    res.end();
  } finally {
    res.off('close', onClose);
    res.off('drain', onDrain);
    // Ends the source's query when we stopped early (client gone, or a failure of ours).
    if (gone) await iterator.return?.();
  }
}

function writeHead(res: Response, status: number, headers: Record<string, string>): void {
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
}
