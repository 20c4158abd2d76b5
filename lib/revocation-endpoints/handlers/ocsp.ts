/**
 * OCSP (RFC 6960, the RFC 5019 profile) for a CA's end-entity certificates (`/ocsp/{serial}/cert/`)
 * and for its child CAs (`/ocsp/{serial}/ca/`): the DER request as a POST body, or base64 in the path
 * of a GET (RFC 6960 Appendix A.1).
 *
 * OCSP always answers 200 with an OCSP response, also for garbage (`malformedRequest`) and for a CA
 * we do not have (`unauthorized`), because OCSP clients understand nothing else; the responder
 * (lib/ca/ocsp.ts) never throws.
 */
import type { Request } from 'express';
import type { OcspTarget } from '../../ca/ocsp';
import { readRawBody } from '../../http/body';
import { sendContent } from '../../http/send';
import type { RevocationHandler, RevocationRequest } from '../route-types';

/** An OCSP request is a few hundred bytes; anything near this is not one. */
const OCSP_BODY_LIMIT = 64 * 1024;

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

/** The body of a POST; one that is too large or breaks off is no request (→ `malformedRequest`). */
const requestFromBody = (req: Request): Promise<Buffer | null> => readRawBody(req, OCSP_BODY_LIMIT).catch(() => null);

async function answerOcsp({ res, params, services }: RevocationRequest, target: OcspTarget, request: Buffer | null): Promise<void> {
  // No request at all is answered (and counted) by the responder too: `malformedRequest`.
  const body = await services.ocsp.respond(params.serial, target, request);
  sendContent(res, 'application/ocsp-response', body, { 'Cache-Control': 'no-cache' });
}

export const endEntityOcspFromBody: RevocationHandler = async (r) => answerOcsp(r, 'cert', await requestFromBody(r.req));

export const endEntityOcspFromPath: RevocationHandler = (r) => answerOcsp(r, 'cert', requestFromPath(r.params.request));

export const childCaOcspFromBody: RevocationHandler = async (r) => answerOcsp(r, 'ca', await requestFromBody(r.req));

export const childCaOcspFromPath: RevocationHandler = (r) => answerOcsp(r, 'ca', requestFromPath(r.params.request));
