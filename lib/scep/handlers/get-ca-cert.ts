/**
 * `GET ?operation=GetCACert` (RFC 8894 §4.2): the RA certificate first, then the CA and its chain up
 * to the root, as certs-only PKCS#7 (`application/x-x509-ca-ra-cert`). Clients encrypt their requests
 * to the RA (the one certificate that is no CA) and strongSwan keeps the root. The `message`
 * parameter (a CA identifier) is ignored: the URL's label chooses the CA, and the same answer for any
 * value ends the walk of clients that try `message=1,2,…`.
 */
import { caChain } from '../../ca/lookup';
import { certsOnlyPkcs7 } from '../../x509/pkcs7';
import { scepEndpoint } from '../endpoint';
import type { ScepHandler } from '../route-types';
import { sendScep } from '../transport';

export const getCaCert: ScepHandler = async ({ res, params, services }) => {
  const { ca } = await scepEndpoint(services, params.label);
  const ra = await services.ras.forCa(ca);
  const chain = await caChain(services.cas, ca);
  sendScep(res, 'application/x-x509-ca-ra-cert', certsOnlyPkcs7([ra.certificateDer, ...chain.map((c) => c.der)]));
};
