/**
 * `GET /crl/{serial}/` and `GET /crl/ca/{serial}/`: the CRL of a CA's end-entity certificates and the
 * CRL of its child CAs (docs/guides/revocation.md), DER by default or PEM with
 * `?encoding=PEM`. Built on demand and kept while nothing is revoked (lib/ca/crls.ts); conditional
 * requests get a 304 for the current ETag.
 */
import type { CrlScope } from '../../ports';
import { badRequest } from '../../http/http-errors';
import { sendContent, sendNotModified } from '../../http/send';
import { caBySerial } from '../ca-lookup';
import type { RevocationHandler, RevocationRequest } from '../route-types';

/** How long HTTP caches may keep a CRL (bounded by its nextUpdate): a revocation shows within this. */
const CRL_MAX_AGE_S = 60;

async function serveCrl({ req, res, params, services }: RevocationRequest, scope: CrlScope): Promise<void> {
  const encoding = req.query.encoding ?? 'DER';
  if (encoding !== 'DER' && encoding !== 'PEM') throw badRequest('Invalid encoding requested: use encoding=DER or encoding=PEM.');
  const crl = await services.crls.current(await caBySerial(services, params.serial), scope);
  const remaining = Math.max(0, Math.floor((crl.nextUpdate.getTime() - Date.now()) / 1000));
  const headers = {
    ETag: encoding === 'PEM' ? crl.etag.replace(/"$/, '-pem"') : crl.etag,
    'Last-Modified': crl.thisUpdate.toUTCString(),
    'Cache-Control': `public, max-age=${Math.min(CRL_MAX_AGE_S, remaining)}`,
  };
  const match = req.headers['if-none-match'];
  if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === headers.ETag)) return sendNotModified(res, headers);
  if (encoding === 'PEM') sendContent(res, 'text/plain; charset=utf-8', crl.pem, headers);
  else sendContent(res, 'application/pkix-crl', crl.der, headers);
}

/** The CRL of the CA's end-entity certificates (IDP `onlyContainsUserCerts`). */
export const endEntityCrl: RevocationHandler = (request) => serveCrl(request, 'user');

/** The CRL of the CA's child CAs (IDP `onlyContainsCACerts`). */
export const childCaCrl: RevocationHandler = (request) => serveCrl(request, 'ca');
