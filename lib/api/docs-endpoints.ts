/**
 * The REST API's documentation under its root, without authentication, as upstream: `openapi.json`
 * (the OpenAPI 3.1.0 document built from the route table, lib/openapi/document.ts), `docs/` (Swagger
 * UI, served from the package: lib/openapi/docs.ts) and the docs' assets. The root itself (which
 * hosts print as the API's URL) answers a small JSON index naming both (docs/reference/differences.md D12), where upstream
 * answers 404.
 */
import type { Request, Response } from 'express';
import { methodNotAllowed } from '../http/http-errors';
import { sendContent, sendError, sendJson, serializeJson } from '../http/send';
import { docsAsset, docsHtml, DOCS_ASSET_DIR, DOCS_CSP } from '../openapi/docs';
import { buildOpenApiDocument } from '../openapi/document';
import type { RouteDefinition } from './route-types';

/** Serves `rest` (the path below the API root) if it is documentation; returns whether it did. */
export type DocsEndpoints = (req: Request, res: Response, rest: string, apiBase: string) => boolean;

export function docsEndpoints(routes: readonly RouteDefinition[]): DocsEndpoints {
  // The document names the API root as the client sees it (mount path included): one per root.
  const documents = new Map<string, string>();
  const openApiJson = (apiBase: string): string => {
    let doc = documents.get(apiBase);
    if (!doc) {
      doc = serializeJson(buildOpenApiDocument(apiBase, routes));
      documents.set(apiBase, doc);
    }
    return doc;
  };

  return (req, res, rest, apiBase) => {
    const isIndex = rest === '';
    const isDocs = rest === 'docs' || rest === 'docs/';
    const isSpec = rest === 'openapi.json';
    const asset = rest.startsWith(DOCS_ASSET_DIR) ? docsAsset(rest.slice(DOCS_ASSET_DIR.length), apiBase) : null;
    if (!isIndex && !isDocs && !isSpec && !asset) return false;
    if (req.method !== 'GET') {
      sendError(res, methodNotAllowed(['GET']));
      return true;
    }
    if (isIndex) sendJson(res, 200, { openapi: `${apiBase}openapi.json`, docs: `${apiBase}docs/` });
    else if (isSpec) sendContent(res, 'application/json', openApiJson(apiBase));
    else if (isDocs) sendContent(res, 'text/html; charset=utf-8', docsHtml(apiBase), { 'Content-Security-Policy': DOCS_CSP });
    else if (asset) sendContent(res, asset.type, asset.body, { 'Cache-Control': 'public, max-age=3600' });
    return true;
  };
}
