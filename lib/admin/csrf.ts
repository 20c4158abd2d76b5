/**
 * Cross-site request forgery (docs/guides/admin-interface.md, security): every state-changing request
 * must come from a page of this origin and carry the session's synchronizer token.
 *
 * Origin first: `Sec-Fetch-Site` when the browser sends it (it must be `same-origin`); else the
 * `Origin` header must be this origin — `Origin: null` too is refused: it is what a sandboxed frame,
 * a `data:` page or a redirect across origins sends, none of them a page of this interface (the
 * interface's pages send `Referrer-Policy: same-origin`, under which a browser names the origin of a
 * same-origin form). With neither header (an old browser, a script) the token alone decides.
 */
import { createHash, timingSafeEqual } from 'crypto';
import type { Request } from 'express';

export function comesFromAnotherSite(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin';
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return false;
  return origin !== `${req.protocol}://${req.headers.host ?? ''}`;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Constant-time comparison of a submitted token with the expected one. */
export function tokenMatches(given: unknown, expected: string): boolean {
  return typeof given === 'string' && given.length > 0 && timingSafeEqual(digest(given), digest(expected));
}
