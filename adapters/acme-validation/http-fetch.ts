/**
 * One GET of an http-01 URL (or a redirect target) from one address: connected to the address the
 * validator resolved itself, with the URL's `Host` header, within the time given and reading at most
 * `maxBodyBytes`. Node's http/https modules, no agent (no pooled connection outlives a validation).
 *
 * An https target's certificate is not verified: the proof is the key authorization in the body,
 * which TLS authentication would not add to, and a name being validated often has no valid
 * certificate yet (Let's Encrypt does the same).
 */
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import { socketErrorText } from './outcome';
import type { NotConnected } from './targets';

export interface FetchTarget {
  url: URL;
  /** The address to connect to (resolved from the URL's host, or the host itself). */
  address: string;
  port: number;
}

export interface FetchLimits {
  /** Time to get a TCP connection, after which the next address may be tried. */
  connectMs: number;
  /** Time for all of it. */
  totalMs: number;
  maxBodyBytes: number;
}

export type FetchResult =
  | { response: { status: number; location: string | undefined; body: Buffer; tooLarge: boolean } }
  /** Connected, then failed: a reset, a timeout, a TLS handshake error, a malformed response. */
  | { failed: string; tls: boolean };

const USER_AGENT = 'express-ca-api ACME validator';

/** RFC 9110 §15.4: the statuses that redirect with a Location (300 and 304 do not). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export function fetchOnce(target: FetchTarget, limits: FetchLimits): Promise<FetchResult | NotConnected> {
  const { url } = target;
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const options: https.RequestOptions = {
    host: target.address,
    port: target.port,
    method: 'GET',
    path: `${url.pathname}${url.search}`,
    // url.host: the name (an IPv6 address bracketed) with the port when it is not the scheme's default.
    headers: { Host: url.host, 'User-Agent': USER_AGENT, Accept: '*/*', Connection: 'close' },
    agent: false,
  };
  return new Promise((resolve) => {
    let settled = false;
    let connected = false;
    let tlsStarted = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (result: FetchResult | NotConnected): void => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      req.destroy();
      resolve(result);
    };
    const req = secure
      ? https.request({ ...options, servername: net.isIP(hostname) ? '' : hostname, rejectUnauthorized: false })
      : http.request(options);
    timers.push(
      setTimeout(() => {
        if (!connected) finish({ notConnected: 'timeout' });
      }, limits.connectMs),
      setTimeout(() => finish(connected ? { failed: 'timeout', tls: false } : { notConnected: 'timeout' }), limits.totalMs),
    );
    req.on('socket', (socket) => {
      socket.once('connect', () => {
        connected = true;
        tlsStarted = secure;
      });
      socket.once('secureConnect', () => (tlsStarted = false));
    });
    req.on('error', (e) => {
      const text = socketErrorText(e);
      if (!connected) finish({ notConnected: text });
      else finish({ failed: tlsStarted ? `TLS handshake failed: ${text}` : text, tls: tlsStarted });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      // A redirect's body does not matter.
      if (REDIRECT_STATUSES.has(status)) return finish({ response: { status, location, body: Buffer.alloc(0), tooLarge: false } });
      const tooLarge = (): void => finish({ response: { status, location, body: Buffer.alloc(0), tooLarge: true } });
      if (Number(res.headers['content-length']) > limits.maxBodyBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBodyBytes) tooLarge();
        else chunks.push(chunk);
      });
      res.on('end', () => finish({ response: { status, location, body: Buffer.concat(chunks), tooLarge: false } }));
      res.on('error', (e) => finish({ failed: socketErrorText(e), tls: false }));
      res.on('aborted', () => finish({ failed: 'connection closed in the middle of the response', tls: false }));
    });
    req.end();
  });
}
