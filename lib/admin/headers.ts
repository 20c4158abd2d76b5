/**
 * Headers of every admin answer (docs/guides/admin-interface.md, security): a Content-Security-Policy that
 * allows no inline script or style and no framing, no MIME sniffing, no referrer across origins, no
 * caching of pages (they hold per-user data), and HSTS over HTTPS.
 */
import type { Response } from 'express';

export const ADMIN_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function setSecurityHeaders(res: Response, secure: boolean): void {
  res.setHeader('Content-Security-Policy', ADMIN_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  if (secure) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
}
