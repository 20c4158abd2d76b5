/**
 * Closing the connection of a request whose body we refused (413, an OCSP or ACME body over its
 * limit), so that the client reads the answer (RFC 9112 §9.6, "tear-down").
 *
 * Node answers and then, for a `Connection: close` exchange, destroys the socket as soon as the answer
 * is written. A client still sending its body has bytes in flight that nobody reads any more: the
 * kernel answers them with a reset, which also discards our answer from the client's receive buffer,
 * and the client sees `write EPIPE` / `ECONNRESET` instead of the 413. Closing gracefully instead:
 * the answer, then a half-close (`socket.end()`, our FIN after it), then reading and discarding what
 * the client still sends — until it closes its side, or at most `LINGER_MAX_BYTES` more bytes or
 * `LINGER_MAX_MS`, whichever comes first — and only then destroying the socket. A client that keeps
 * sending (an endless body) is cut off at either bound, so refusing a body still bounds what it costs.
 *
 * The connection is not kept alive after a refused body (`Connection: close` on the answer): the rest
 * of that body would otherwise be read into the void for as long as the client cares to send it.
 */
import type { Socket } from 'net';
import type { Request } from 'express';

/** How much more of a refused body is read and discarded after the answer, at most. */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

/** How long the connection of a refused body stays open after the answer, at most. */
export const LINGER_MAX_MS = 10_000;

/** Sockets already set up to close gracefully (a request may refuse its body more than once). */
const lingering = new WeakSet<Socket>();

/**
 * Arrange for `req`'s connection to close gracefully after the answer to it (see the file header).
 * Called when its body is refused, before the answer is written; the rest of the body is discarded,
 * at most `LINGER_MAX_BYTES` of it from here on.
 */
export function closeAfterAnswer(req: Request): void {
  const socket = req.socket;
  if (!socket || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  if (req.res && !req.res.headersSent) req.res.setHeader('Connection', 'close');
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_MAX_BYTES) socket.destroy();
  });
  // Bytes after the body would be parsed as another request, which Node refuses by destroying the
  // socket: counting the body's bytes bounds what is read.
  req.resume();
  // Node ends an exchange marked `Connection: close` with `socket.destroySoon()` once the answer is
  // written (FIN, then destroy as soon as it is flushed): this socket's does the graceful close instead.
  (socket as Socket & { destroySoon: () => void }).destroySoon = () => linger(socket);
}

function linger(socket: Socket): void {
  if (socket.destroyed) return;
  const deadline = setTimeout(() => socket.destroy(), LINGER_MAX_MS);
  deadline.unref();
  socket.once('close', () => clearTimeout(deadline));
  // The client closed its side: nothing more is coming.
  socket.once('end', () => socket.destroy());
  // The half-close: our FIN follows the answer, so the client reads it to its end.
  socket.end();
}
