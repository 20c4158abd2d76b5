/**
 * Re-authentication for the sensitive actions (docs/guides/admin-interface.md, step-up; OWASP's
 * transaction authorization): the signed-in user types the password again. Checked as the sign-in
 * is — the same login limiter first (429 with `Retry-After` at its limit, no password checked), a
 * failure counted and a lockout recorded in the audit log. A success starts a new session (a new
 * token and cookie; the old token no longer works) whose step-up time is now, and returns to `next`,
 * a page of this interface only.
 */
import { recordLockout } from '../../audit/lockouts';
import type { SignedInContext } from '../context';
import { SESSION_COOKIE, setCookie } from '../cookies';
import { html } from '../html';
import { redirect, sendPage } from '../page';
import { nextPage } from './login';

function reauthForm(ctx: SignedInContext, status: number, message: string | null): void {
  const next = typeof ctx.req.query.next === 'string' ? ctx.req.query.next : (ctx.form?.get('next') ?? '');
  sendPage(ctx, {
    status,
    title: 'Confirm your password',
    body: html`<div class="login">
      <h1>Confirm your password</h1>
      ${message ? html`<p class="message error" role="alert">${message}</p>` : null}
      <p>This action needs your password again, ${ctx.session.user.username}.</p>
      <form method="post" action="${ctx.base}reauth">
        <input type="hidden" name="_csrf" value="${ctx.session.record.csrfToken}" />
        <input type="hidden" name="next" value="${nextPage(ctx, next)}" />
        <div class="field">
          <label for="password">Password</label
          ><input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <button type="submit">Continue</button>
      </form>
    </div>`,
  });
}

export async function showReauthenticate(ctx: SignedInContext): Promise<void> {
  reauthForm(ctx, 200, null);
}

export async function reauthenticate(ctx: SignedInContext): Promise<void> {
  const { req, res, services, session } = ctx;
  const form = ctx.form as URLSearchParams;
  const { username } = session.user;
  const password = form.get('password') ?? '';
  const address = req.ip ?? req.socket.remoteAddress ?? '';
  const { retryAfterSeconds, userFailures } = await services.loginLimiter.check(username, address);
  if (retryAfterSeconds > 0) {
    res.setHeader('Retry-After', String(retryAfterSeconds));
    return reauthForm(ctx, 429, `Too many failed attempts. Try again in ${retryAfterSeconds} seconds.`);
  }
  const user = password ? await services.authenticator.authenticate(username, password) : null;
  const record = user?.id === session.user.id ? await services.store.getUserById(user.id) : null;
  if (!record) {
    const lockout = await services.loginLimiter.failed(username, address);
    if (lockout) await recordLockout(services.store, username, address, lockout, services.logError, 'admin');
    return reauthForm(ctx, 400, 'Wrong password.');
  }
  if (userFailures > 0) await services.loginLimiter.succeeded(username, address);
  // A new token, as at sign-in: whoever held the old one (a copied cookie) gains no step-up.
  await services.sessions.end(session.token);
  const { token } = await services.sessions.start(record, address);
  setCookie(req, res, SESSION_COOKIE, token);
  redirect(res, nextPage(ctx, form.get('next')));
}
