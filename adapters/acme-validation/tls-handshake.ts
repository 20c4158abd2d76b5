/**
 * The TLS handshake of tls-alpn-01 (RFC 8737 §3) with one address: SNI the name being validated, the
 * single ALPN protocol `acme-tls/1`, TLS 1.2 or later (RFC 8737 §4), and no certificate verification —
 * the challenge certificate is self-signed by design; what proves control is its content, checked by
 * challenge-certificate.ts. Nothing is sent after the handshake: the connection is closed at once.
 */
import * as tls from 'tls';
import { socketErrorText } from './outcome';
import type { NotConnected } from './targets';

export const ACME_TLS_1 = 'acme-tls/1';

export type HandshakeResult =
  | { alpnProtocol: string | false | null; certificate: Buffer | null }
  /** Connected, then the handshake failed; `final` when the server said it does not speak acme-tls/1. */
  | { failed: string; final: boolean };

export interface HandshakeTarget {
  address: string;
  port: number;
  servername: string;
}

export function tlsHandshake(
  target: HandshakeTarget,
  limits: { connectMs: number; totalMs: number },
): Promise<HandshakeResult | NotConnected> {
  return new Promise((resolve) => {
    let settled = false;
    let connected = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (result: HandshakeResult | NotConnected): void => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      socket.destroy();
      resolve(result);
    };
    const socket = tls.connect({
      host: target.address,
      port: target.port,
      servername: target.servername,
      ALPNProtocols: [ACME_TLS_1],
      minVersion: 'TLSv1.2',
      rejectUnauthorized: false,
    });
    timers.push(
      setTimeout(() => {
        if (!connected) finish({ notConnected: 'timeout' });
      }, limits.connectMs),
      setTimeout(
        () => finish(connected ? { failed: 'timeout during the TLS handshake', final: false } : { notConnected: 'timeout' }),
        limits.totalMs,
      ),
    );
    socket.once('connect', () => (connected = true));
    socket.once('secureConnect', () => {
      finish({ alpnProtocol: socket.alpnProtocol, certificate: socket.getPeerX509Certificate()?.raw ?? null });
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (!connected) return finish({ notConnected: socketErrorText(e) });
      // The server's no_application_protocol alert (RFC 7301 §3.2): it answers, but not with acme-tls/1.
      if (e.code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL') {
        return finish({ failed: `the server does not offer the ${ACME_TLS_1} protocol (no_application_protocol alert)`, final: true });
      }
      finish({ failed: `TLS handshake failed: ${socketErrorText(e)}`, final: false });
    });
    socket.once('close', () =>
      finish(connected ? { failed: 'connection closed during the TLS handshake', final: false } : { notConnected: 'connection closed' }),
    );
  });
}
