/**
 * Signing in and out (docs/guides/admin-interface.md). The form is checked as the REST API checks Basic
 * credentials: the login limiter first (at its limit: 429 with `Retry-After`, no password checked),
 * then the authenticator, one message for an unknown user and a wrong password, failures counted and
 * a lockout recorded in the audit log. Only a holder of `use_admin` may sign in; anyone else gets the
 * message of a wrong password. A sign-in makes a new session; signing out deletes it on the server and
 * clears the browser's copy.
 */
import { recordLockout } from '../../audit/lockouts';
import type { AdminContext, SignedInContext } from '../context';
import { clearCookie, LOGIN_COOKIE, readCookie, SESSION_COOKIE, setCookie } from '../cookies';
import { comesFromAnotherSite, tokenMatches } from '../csrf';
import { html } from '../html';
import { redirect, sendPage } from '../page';
import { newToken } from '../session';

const WRONG = 'Wrong username or password.';

/** A stand-in origin to resolve `next` against: only a path of this origin is a page of this interface. */
const HERE = 'http://admin.invalid';

/**
 * `next`, normalised as a browser resolves it, when it is a page of this interface (never a redirect
 * elsewhere), else the dashboard. The prefix is checked on the resolved path: `/admin/../..//host` and
 * `/admin/%2e%2e/%2e%2e//host` begin with it and lead out of it. No backslash and no control character
 * either: browsers read `/\\host` and `/<tab>/host` as `//host`.
 */
export function nextPage(ctx: AdminContext, next: string | null): string {
  const unsafe = (c: string) => c === '\\' || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;
  if (!next || !next.startsWith('/') || next.startsWith('//') || [...next].some(unsafe)) return ctx.base;
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return ctx.base;
  }
  const page = `${url.pathname}${url.search}${url.hash}`;
  return url.origin === HERE && url.pathname.startsWith(ctx.base) && !page.startsWith('//') ? page : ctx.base;
}

function loginForm(ctx: AdminContext, status: number, message: string | null, username = ''): void {
  // Each form gets a fresh token in its own cookie (login CSRF, docs/guides/admin-interface.md).
  const token = newToken();
  setCookie(ctx.req, ctx.res, LOGIN_COOKIE, token);
  const next = typeof ctx.req.query.next === 'string' ? ctx.req.query.next : (ctx.form?.get('next') ?? '');
  sendPage(ctx, {
    status,
    title: 'Sign in',
    body: html`<div class="login">
      <h1>Sign in</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      <form method="post" action="${ctx.base}login">
        <input type="hidden" name="_csrf" value="${token}" />
        <input type="hidden" name="next" value="${next}" />
        <div class="field">
          <label for="username">Username</label><input id="username" name="username" autocomplete="username" required value="${username}" />
        </div>
        <div class="field">
          <label for="password">Password</label
          ><input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <button type="submit">Sign in</button>
      </form>
    </div>`,
  });
}

/** The form; also to a signed-in user (to sign in as someone else: the current session then ends). */
export async function showLogin(ctx: AdminContext): Promise<void> {
  loginForm(ctx, 200, null);
}

export async function login(ctx: AdminContext): Promise<void> {
  const { req, res, services } = ctx;
  const form = ctx.form as URLSearchParams;
  const expected = readCookie(req, LOGIN_COOKIE);
  if (comesFromAnotherSite(req) || !expected || !tokenMatches(form.get('_csrf'), expected)) {
    return loginForm(ctx, 403, 'The sign-in form had expired or came from another site. Please sign in again.');
  }
  const username = form.get('username') ?? '';
  const password = form.get('password') ?? '';
  const address = req.ip ?? req.socket.remoteAddress ?? '';
  const { retryAfterSeconds, userFailures } = await services.loginLimiter.check(username, address);
  if (retryAfterSeconds > 0) {
    res.setHeader('Retry-After', String(retryAfterSeconds));
    return loginForm(ctx, 429, `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} seconds.`, username);
  }
  const user = username && password ? await services.authenticator.authenticate(username, password) : null;
  const record = user ? await services.store.getUserById(user.id) : null;
  if (record && !(await services.permissions.hasPermission({ id: record.id, username: record.username }, 'use_admin'))) {
    // A user without use_admin (a machine user of the REST API) gets the wrong password's message and
    // status, so the form does not tell that the password was right. Not counted as a failure: the
    // password was right, and with a limiter shared with the REST API (databaseLoginAttemptLimiter)
    // counting it would lock that user's machine out after a few tries in a browser; it tells an
    // attacker nothing the REST API, which answers these credentials at once, does not. Not a success
    // either: the counts are not reset. Not audited, as a wrong password is not (only lockouts are).
    return loginForm(ctx, 400, WRONG, username);
  }
  if (!record) {
    const lockout = await services.loginLimiter.failed(username, address);
    if (lockout) await recordLockout(services.store, username, address, lockout, services.logError, 'admin');
    return loginForm(ctx, 400, WRONG, username);
  }
  if (userFailures > 0) await services.loginLimiter.succeeded(username, address);
  if (ctx.session) await services.sessions.end(ctx.session.token);
  const { token } = await services.sessions.start(record, address);
  setCookie(req, res, SESSION_COOKIE, token);
  clearCookie(req, res, LOGIN_COOKIE);
  redirect(res, nextPage(ctx, form.get('next')));
}

export async function logout(ctx: SignedInContext): Promise<void> {
  await ctx.services.sessions.end(ctx.session.token);
  clearCookie(ctx.req, ctx.res, SESSION_COOKIE);
  ctx.res.setHeader('Clear-Site-Data', '"cache", "cookies"');
  redirect(ctx.res, `${ctx.base}login`);
}
