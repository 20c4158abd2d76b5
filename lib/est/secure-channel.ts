/**
 * `serverkeygen` sends a private key, so it answers only over a channel nobody else reads (RFC 7030
 * §4.4: "the EST server MUST use TLS"; docs/guides/est.md): HTTPS — a TLS socket, or a reverse proxy the
 * host trusts (Express's `trust proxy`) saying `X-Forwarded-Proto: https`, which `req.secure` reads —
 * or plain HTTP made directly from this machine (a loopback peer with no forwarding header), where
 * the key does not cross a network.
 */
import type { Request } from 'express';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses. */
function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** May a private key be sent in the answer to `req`? */
export function isPrivateChannel(req: Request): boolean {
  if (req.secure) return true;
  return isLoopbackAddress(req.socket.remoteAddress) && !FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined);
}
