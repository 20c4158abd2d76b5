/** The stylesheet and the script, cached for a year: their URLs change with their content (style.ts, csr-file-script.ts). */
import type { AdminContext } from '../context';
import { CSR_FILE_SCRIPT } from '../csr-file-script';
import { ADMIN_CSS } from '../style';

const CSS = Buffer.from(ADMIN_CSS, 'utf8');
const SCRIPT = Buffer.from(CSR_FILE_SCRIPT, 'utf8');

function serveAsset(ctx: AdminContext, type: string, body: Buffer): void {
  ctx.res.setHeader('Content-Type', type);
  ctx.res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.res.setHeader('Content-Length', String(body.length));
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
}

export async function serveStylesheet(ctx: AdminContext): Promise<void> {
  serveAsset(ctx, 'text/css; charset=utf-8', CSS);
}

export async function serveCsrFileScript(ctx: AdminContext): Promise<void> {
  serveAsset(ctx, 'text/javascript; charset=utf-8', SCRIPT);
}
