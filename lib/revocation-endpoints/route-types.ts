/**
 * The shape of a revocation endpoint and of its handler. The route table (`routes.ts`) is data of
 * these types; the handlers import only this file, so that the table and the handlers form no
 * import circle.
 */
import type { Request, Response } from 'express';
import type { CrlPublisher } from '../ca/crls';
import type { OcspResponder } from '../ca/ocsp';
import type { PathRoute } from '../http/path-matcher';
import type { Store } from '../ports';

/** What the handlers work with, built once per mount (lib/revocation-endpoints/mount.ts). */
export interface RevocationServices {
  /** CA rows by serial (the CA cache, lib/cache/ca-cache.ts). */
  cas: Pick<Store, 'findCaBySerial'>;
  /** CRLs built on demand and kept while nothing is revoked (lib/ca/crls.ts). */
  crls: CrlPublisher;
  /** OCSP request bytes in, response bytes out (lib/ca/ocsp.ts). */
  ocsp: OcspResponder;
}

/** One request, matched: the handler writes the answer itself (certificates, CRLs and OCSP are bytes, not JSON). */
export interface RevocationRequest {
  req: Request;
  res: Response;
  /** Path parameters, converted (lib/revocation-endpoints/path-params.ts): `serial` sanitised, `request` as sent. */
  params: Record<string, string>;
  services: RevocationServices;
}

export type RevocationHandler = (request: RevocationRequest) => Promise<void>;

export interface RevocationRoute extends PathRoute {
  method: 'GET' | 'POST';
  /** Relative to `/{urlPath}`, with `{serial}` / `{request}` placeholders (path-params.ts). */
  path: string;
  handler: RevocationHandler;
}
