/**
 * JSON answers for the errors Node's HTTP server answers itself, before any Express middleware runs:
 * request headers too large (431, e.g. an oversized `Authorization` header), a request Node cannot
 * parse (400), a request that took too long to arrive (408). Without a `clientError` listener Node
 * sends these with an empty body; an API whose every other answer is JSON (docs/reference/differences.md D11) should not.
 *
 * The router cannot do this for the host: the server belongs to the host app. Hosts call
 * `answerClientErrorsAsJson(server)` once (docs/operations/hostile-clients-and-outages.md "Errors the HTTP server answers"), as the example
 * host server does.
 */
import { STATUS_CODES, type Server } from 'http';
import type { Duplex } from 'stream';

/** Node's llhttp error codes → status and detail. */
const KNOWN: Record<string, { status: number; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, detail: 'Request header fields too large.' },
  HPE_REQUEST_TIMEOUT: { status: 408, detail: 'Request timeout.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: 'Request timeout.' },
};

/** The raw HTTP/1.1 answer for a client error (the connection is closed after it). */
export function clientErrorResponse(code: string | undefined): string {
  const { status, detail } = (code && KNOWN[code]) || { status: 400, detail: 'Bad request: the HTTP request could not be parsed.' };
  const body = JSON.stringify({ detail });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    'Cache-Control: no-store\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Answer `server`'s client errors with a JSON body (see the file header). Returns the server. */
export function answerClientErrorsAsJson<S extends Server>(server: S): S {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the client already dropped, or one whose response has begun, cannot be answered.
    if (
      error.code === 'ECONNRESET' ||
      !socket.writable ||
      (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
    ) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(error.code));
  });
  return server;
}
