/**
 * The frame of every admin page (header with navigation and sign-out, one stylesheet, no script) and
 * how pages, redirects and refusals are sent.
 */
import type { Response } from 'express';
import type { AdminContext } from './context';
import { html, type Html } from './html';
import { ADMIN_CSS_HASH } from './style';

export interface PageContent {
  title: string;
  body: Html;
  status?: number;
}

/** The navigation: what every signed-in user has, then the pages of the interface's own permissions. */
function navigation(ctx: AdminContext & { session: NonNullable<AdminContext['session']> }): [string, string][] {
  const { base, session } = ctx;
  const links: [string, string][] = [
    [base, 'Dashboard'],
    [`${base}certs/`, 'Certificates'],
    [`${base}issue`, 'Issue'],
    [`${base}profiles/`, 'Profiles'],
  ];
  if (session.user.permissions.includes('view_auditlog')) {
    links.push([`${base}audit/`, 'Audit log'], [`${base}signatures/`, 'Signatures']);
  }
  if (session.user.permissions.includes('manage_webhooks')) links.push([`${base}webhooks/`, 'Webhooks']);
  if (session.user.permissions.includes('manage_users')) links.push([`${base}users/`, 'Users']);
  return links;
}

function header(ctx: AdminContext): Html {
  const { base, session } = ctx;
  if (!session) return html`<header class="top"><a class="brand" href="${base}">CA admin</a></header>`;
  const links = navigation({ ...ctx, session }).map(([href, label]) => html`<a href="${href}">${label}</a>`);
  return html`<header class="top">
    <a class="brand" href="${base}">CA admin</a>
    <nav aria-label="Main">${links}</nav>
    <span>${session.user.username}</span>
    <form method="post" action="${base}logout">
      <input type="hidden" name="_csrf" value="${session.record.csrfToken}" /><button class="link" type="submit">Sign out</button>
    </form>
  </header>`;
}

export function sendPage(ctx: AdminContext, content: PageContent): void {
  const page = html`<!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${content.title} · CA admin</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${ctx.base}assets/admin.css?v=${ADMIN_CSS_HASH}" />
      </head>
      <body>
        ${header(ctx)}
        <main id="main">${content.body}</main>
      </body>
    </html> `;
  const body = Buffer.from(page.text, 'utf8');
  ctx.res.status(content.status ?? 200);
  ctx.res.setHeader('Content-Type', 'text/html; charset=utf-8');
  ctx.res.setHeader('Content-Length', String(body.length));
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
}

/** 303 See Other: after a POST, the browser GETs the page (no re-submission on reload). */
export function redirect(res: Response, location: string): void {
  res.status(303).setHeader('Location', location);
  res.end();
}

/** A page that says what went wrong, with its status; never a stack trace. */
export function sendMessagePage(ctx: AdminContext, status: number, title: string, message: string): void {
  sendPage(ctx, {
    status,
    title,
    body: html`<h1>${title}</h1>
      <p class="message error" role="alert">${message}</p>
      <p><a href="${ctx.base}">Back to the dashboard</a></p>`,
  });
}
