/**
 * Who may read the metrics (docs/operations/metrics.md). Metrics are not secrets, but they tell an outsider
 * the CA's names, its issuing rate and when its database is down; so the endpoint answers nobody
 * the host did not name:
 *
 * - `bearerToken`: `Authorization: Bearer <token>` (RFC 6750 §2.1), compared in constant time; a
 *   missing or wrong token is a 401 with `WWW-Authenticate: Bearer` (§3);
 * - `authorize(req)`: the host's rule (addresses, mTLS, its own sessions); false is a 403;
 * - neither: requests made directly from this machine only — the TCP peer is a loopback address and
 *   the request carries no `Forwarded` (RFC 7239), `X-Forwarded-For` or `X-Real-IP`. A reverse proxy
 *   on the same machine connects from loopback too; its requests are the internet's, and are refused.
 *   Loopback rather than nothing: a Prometheus agent or `curl` on the host works without a secret, and
 *   anything from elsewhere needs a decision of the host.
 */
import { createHash, timingSafeEqual } from 'crypto';
import type { Request } from 'express';
import { forbidden, HttpError } from '../http/http-errors';
import type { MetricsAuthorizer } from './options';

/** The answer refusing `req`, or null when it may read the metrics. */
export type MetricsAccess = (req: Request) => Promise<HttpError | null>;

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses (how a dual-stack socket reports 127.0.0.1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Made directly from this machine: a loopback peer, not relayed by a proxy. */
export function isDirectLocalRequest(req: Request): boolean {
  return isLoopbackAddress(req.socket.remoteAddress) && !FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined);
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

function bearerTokenOf(req: Request): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
  return match ? match[1] : null;
}

const unauthenticated = (): HttpError =>
  new HttpError(401, 'Authentication credentials were not provided or are wrong.', { 'WWW-Authenticate': 'Bearer realm="metrics"' });

export function metricsAccess(rule: { authorize: MetricsAuthorizer | null; bearerToken: string | null }): MetricsAccess {
  const { authorize, bearerToken } = rule;
  const expected = bearerToken === null ? null : digest(bearerToken);
  return async (req) => {
    if (expected) {
      const given = bearerTokenOf(req);
      // Digests of equal length, so that the comparison takes the same time whatever was sent.
      if (given === null || !timingSafeEqual(digest(given), expected)) return unauthenticated();
    }
    if (authorize) return (await authorize(req)) === true ? null : forbidden();
    if (expected) return null;
    return isDirectLocalRequest(req) ? null : forbidden();
  };
}
