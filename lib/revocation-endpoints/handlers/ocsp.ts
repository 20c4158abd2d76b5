/**
 * The public endpoints that the URLs inside issued certificates point at (docs/COMPATIBILITY.md
 * "Revocation serving"): no authentication, under the same prefix as the API (`/{urlPath}`):
 *
 *   GET  issuer/{S}.der          the CA certificate (DER, application/pkix-cert)
 *   GET  crl/{S}/                CRL of S's end-entity certificates (?encoding=DER|PEM)
 *   GET  crl/ca/{S}/             CRL of S's child CAs
 *   POST ocsp/{S}/cert/          OCSP for S's end-entity certificates (DER request body)
 *   GET  ocsp/{S}/cert/{base64}  the same, request in the path (RFC 6960 Appendix A.1)
 *   POST ocsp/{S}/ca/ , GET ocsp/{S}/ca/{base64}   OCSP for S's child CAs
 *
 * Unknown CAs are a JSON 404 (the original answers 500); OCSP always answers 200 with an OCSP
 * response, also for garbage (`malformedRequest`), because OCSP clients understand nothing else.
 */
import type { Request, Response } from 'express';
import type { CaRecord, CrlScope, Store } from '../../ports';
import type { CrlPublisher } from '../../ca/crls';
import type { OcspResponder, OcspTarget } from '../../ca/ocsp';
import { ocspErrorResponse } from '../../x509/revocation/ocsp-response';
import { readRawBody } from '../../http/body';
import { badRequest, HttpError, methodNotAllowed, notFound } from '../../http/http-errors';
import { sanitizeSerial } from '../../http/path-matcher';

/** An OCSP request is a few hundred bytes; anything near this is not one. */
const OCSP_BODY_LIMIT = 64 * 1024;
/** How long HTTP caches may keep a CRL (bounded by its nextUpdate): a revocation shows within this. */
const CRL_MAX_AGE_S = 60;

export interface RevocationEndpoints {
  cas: Pick<Store, 'findCaBySerial'>;
  crls: CrlPublisher;
  ocsp: OcspResponder;
}

type Sender = (res: Response, error: HttpError) => void;

const SERIAL = '([0-9A-Fa-f:]+)';
const ISSUER = new RegExp(`^issuer/${SERIAL}\\.der$`);
const CRL = new RegExp(`^crl/(ca/)?${SERIAL}/$`);
const OCSP = new RegExp(`^ocsp/${SERIAL}/(cert|ca)/(.*)$`);

function send(res: Response, type: string, body: Buffer | string, headers: Record<string, string> = {}): void {
  res.status(200);
  res.setHeader('Content-Type', type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(body);
}

async function ca(endpoints: RevocationEndpoints, serial: string): Promise<CaRecord> {
  const found = await endpoints.cas.findCaBySerial(sanitizeSerial(serial));
  if (!found) throw notFound();
  return found;
}

/** The OCSP request of a GET: standard base64, possibly percent-encoded, in the rest of the path. */
function requestFromPath(encoded: string): Buffer | null {
  let text: string;
  try {
    text = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  return Buffer.from(text, 'base64');
}

async function serveCrl(endpoints: RevocationEndpoints, req: Request, res: Response, serial: string, scope: CrlScope): Promise<void> {
  const encoding = req.query.encoding ?? 'DER';
  if (encoding !== 'DER' && encoding !== 'PEM') throw badRequest('Invalid encoding requested: use encoding=DER or encoding=PEM.');
  const crl = await endpoints.crls.current(await ca(endpoints, serial), scope);
  const remaining = Math.max(0, Math.floor((crl.nextUpdate.getTime() - Date.now()) / 1000));
  const headers = {
    ETag: encoding === 'PEM' ? crl.etag.replace(/"$/, '-pem"') : crl.etag,
    'Last-Modified': crl.thisUpdate.toUTCString(),
    'Cache-Control': `public, max-age=${Math.min(CRL_MAX_AGE_S, remaining)}`,
  };
  const match = req.headers['if-none-match'];
  if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === headers.ETag)) {
    res.status(304);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.end();
    return;
  }
  if (encoding === 'PEM') send(res, 'text/plain; charset=utf-8', crl.pem, headers);
  else send(res, 'application/pkix-crl', crl.der, headers);
}

async function serveOcsp(
  endpoints: RevocationEndpoints,
  req: Request,
  res: Response,
  serial: string,
  target: OcspTarget,
  rest: string,
): Promise<void> {
  let request: Buffer | null;
  if (req.method === 'POST' && rest === '') {
    request = await readRawBody(req, OCSP_BODY_LIMIT).catch(() => null);
  } else if (req.method === 'GET' && rest !== '') {
    request = requestFromPath(rest);
  } else {
    throw methodNotAllowed(rest === '' ? ['POST'] : ['GET']);
  }
  const body = request ? await endpoints.ocsp.respond(sanitizeSerial(serial), target, request) : ocspErrorResponse('malformedRequest');
  send(res, 'application/ocsp-response', body, { 'Cache-Control': 'no-cache' });
}

/**
 * Serve `rest` (the path below `/{urlPath}`) if it is one of the public endpoints; false otherwise.
 * Errors other than OCSP's go to `sendError` as JSON.
 */
export async function serveRevocationEndpoint(
  endpoints: RevocationEndpoints,
  req: Request,
  res: Response,
  rest: string,
  sendError: Sender,
): Promise<boolean> {
  const issuer = ISSUER.exec(rest);
  const crl = issuer ? null : CRL.exec(rest);
  const ocsp = issuer || crl ? null : OCSP.exec(rest);
  if (!issuer && !crl && !ocsp) return false;
  try {
    if (ocsp) {
      await serveOcsp(endpoints, req, res, ocsp[1], ocsp[2] as OcspTarget, ocsp[3]);
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(['GET']);
    if (issuer) send(res, 'application/pkix-cert', (await ca(endpoints, issuer[1])).der, { 'Cache-Control': 'public, max-age=3600' });
    else if (crl) await serveCrl(endpoints, req, res, crl[2], crl[1] ? 'ca' : 'user');
  } catch (e) {
    if (e instanceof HttpError) sendError(res, e);
    else throw e;
  }
  return true;
}
