/**
 * The interactive API documentation: Swagger UI from the swagger-ui-dist package, served by us.
 *
 * No CDN and no inline script: the page, the stylesheet, the bundle and a tiny initialiser all come
 * from `{api_root}docs/...`, and a Content-Security-Policy keeps the browser from fetching anything
 * from elsewhere (Swagger UI's online validator is switched off too).
 */
import * as fs from 'fs';
import * as path from 'path';

/** Files of swagger-ui-dist that the page uses, by the name we serve them under. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
  'favicon-16x16.png': { file: 'favicon-16x16.png', type: 'image/png' },
};

/** Directory of the assets under the docs page (`{api_root}docs/assets/`). */
export const DOCS_ASSET_DIR = 'docs/assets/';

export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function swaggerDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

const cache = new Map<string, Buffer>();

export interface DocsAsset {
  type: string;
  body: Buffer;
}

/** An asset by its served name (`swagger-ui.css`, `init.js`, ...), or null if there is none. */
export function docsAsset(name: string, apiBase: string): DocsAsset | null {
  if (name === 'init.js') return { type: 'text/javascript; charset=utf-8', body: Buffer.from(initScript(apiBase)) };
  const asset = Object.prototype.hasOwnProperty.call(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return null;
  let body = cache.get(asset.file);
  if (!body) {
    body = fs.readFileSync(path.join(swaggerDir(), asset.file));
    cache.set(asset.file, body);
  }
  return { type: asset.type, body };
}

function initScript(apiBase: string): string {
  return `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(`${apiBase}openapi.json`)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** The HTML page; every URL in it is absolute on this server (it is served at `docs` and `docs/`). */
export function docsHtml(apiBase: string): string {
  const asset = (name: string): string => escapeHtml(`${apiBase}${DOCS_ASSET_DIR}${name}`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>django-ca API</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}" sizes="32x32">
<link rel="icon" type="image/png" href="${asset('favicon-16x16.png')}" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('init.js')}"></script>
</body>
</html>
`;
}
