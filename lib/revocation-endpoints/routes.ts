/**
 * The seven revocation endpoints, as one table that reads like the list of docs/guides/revocation.md: the URLs that issued certificates carry (lib/ca/extensions.ts puts them there), served
 * without authentication under `/{urlPath}`.
 *
 * Each entry names its method, its path (relative to `/{urlPath}`, with typed placeholders:
 * path-params.ts) and its handler (lib/revocation-endpoints/handlers/), with the lib/ca service the
 * handler calls in the comment beside it. Dispatch is the shared matcher's (lib/http/path-matcher.ts):
 * a path in no entry falls through to the host app; a path in an entry with another method is a 405.
 */
import { childCaCrl, endEntityCrl } from './handlers/crl';
import { issuerCertificate } from './handlers/issuer';
import { childCaOcspFromBody, childCaOcspFromPath, endEntityOcspFromBody, endEntityOcspFromPath } from './handlers/ocsp';
import type { RevocationRoute } from './route-types';

export const REVOCATION_ROUTES: readonly RevocationRoute[] = [
  // The CA certificate and the CRLs: GET (and HEAD); an unknown CA is a JSON 404.
  {
    method: 'GET',
    path: '/issuer/{serial}.der',
    answersHead: true,
    handler: issuerCertificate, // handlers/issuer.ts → the CA row (lib/cache/ca-cache.ts)
  },
  {
    method: 'GET',
    path: '/crl/{serial}/',
    answersHead: true,
    handler: endEntityCrl, // handlers/crl.ts → CrlPublisher.current(ca, 'user') (lib/ca/crls.ts)
  },
  {
    method: 'GET',
    path: '/crl/ca/{serial}/',
    answersHead: true,
    handler: childCaCrl, // handlers/crl.ts → CrlPublisher.current(ca, 'ca') (lib/ca/crls.ts)
  },
  // OCSP: always 200 with an OCSP response.
  {
    method: 'POST',
    path: '/ocsp/{serial}/cert/',
    handler: endEntityOcspFromBody, // handlers/ocsp.ts → OcspResponder.respond(serial, 'cert', request) (lib/ca/ocsp.ts)
  },
  {
    method: 'GET',
    path: '/ocsp/{serial}/cert/{request}',
    handler: endEntityOcspFromPath, // handlers/ocsp.ts → OcspResponder.respond(serial, 'cert', request) (lib/ca/ocsp.ts)
  },
  {
    method: 'POST',
    path: '/ocsp/{serial}/ca/',
    handler: childCaOcspFromBody, // handlers/ocsp.ts → OcspResponder.respond(serial, 'ca', request) (lib/ca/ocsp.ts)
  },
  {
    method: 'GET',
    path: '/ocsp/{serial}/ca/{request}',
    handler: childCaOcspFromPath, // handlers/ocsp.ts → OcspResponder.respond(serial, 'ca', request) (lib/ca/ocsp.ts)
  },
];
