/**
 * `GET cacerts` (RFC 7030 §4.1): the endpoint's CA and its chain up to the root, as base64 certs-only
 * PKCS#7, without authentication. The root must be there: strongSwan's `pki --estca` keeps only a
 * bundle with a self-signed certificate in it.
 */
import { caChain } from '../../ca/lookup';
import { certsOnlyPkcs7 } from '../../x509/pkcs7';
import { endpointCa } from '../endpoint';
import { sendBase64 } from '../framing';
import type { EstHandler } from '../route-types';

export const cacerts: EstHandler = async ({ res, params, services }) => {
  const { ca } = await endpointCa(services, params.label);
  const chain = await caChain(services.cas, ca); // parents through the router's CA cache
  sendBase64(res, 'application/pkcs7-mime', certsOnlyPkcs7(chain.map((c) => c.der)));
};
