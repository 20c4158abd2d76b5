/** The stylesheet, cached for a year: its URL changes with its content (style.ts). */
import type { AdminContext } from '../context';
import { ADMIN_CSS } from '../style';

const CSS = Buffer.from(ADMIN_CSS, 'utf8');

export async function serveStylesheet(ctx: AdminContext): Promise<void> {
  ctx.res.setHeader('Content-Type', 'text/css; charset=utf-8');
  ctx.res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.res.setHeader('Content-Length', String(CSS.length));
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : CSS);
}
