/**
 * The admin interface's cookies. Over HTTPS the session cookie is `__Host-ca_admin` with `Secure`
 * (the prefix makes the browser refuse it without `Secure`, `Path=/` and a `Domain`); over plain HTTP,
 * which the interface serves to loopback clients only, it is `ca_admin`. Always `HttpOnly` and
 * `SameSite=Strict`.
 */
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'ca_admin';
/** The sign-in form's own token (login CSRF: a forged sign-in would put a victim into the attacker's session). */
export const LOGIN_COOKIE = 'ca_admin_login';

const nameFor = (req: Request, base: string): string => (req.secure ? `__Host-${base}` : base);

export function readCookie(req: Request, base: string): string | undefined {
  const name = nameFor(req, base);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function setCookie(req: Request, res: Response, base: string, value: string): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(req.secure ? ['Secure'] : [])];
  appendCookie(res, `${nameFor(req, base)}=${value}; ${attributes.join('; ')}`);
}

export function clearCookie(req: Request, res: Response, base: string): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0', ...(req.secure ? ['Secure'] : [])];
  appendCookie(res, `${nameFor(req, base)}=; ${attributes.join('; ')}`);
}

function appendCookie(res: Response, cookie: string): void {
  const existing = res.getHeader('Set-Cookie');
  const list = Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)];
  res.setHeader('Set-Cookie', [...list, cookie]);
}
