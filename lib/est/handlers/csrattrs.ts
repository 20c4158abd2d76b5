/**
 * `GET csrattrs` (RFC 7030 §4.5): the attributes the server wants in a CSR. The profile decides the
 * extensions, so it asks only for what it checks: at an endpoint that asks for a challenge password
 * (a challenge webhook — which one-time challenges go through too —, of the options or, for an
 * endpoint kept in the database, `--challenge webhook`), the challengePassword attribute (RFC 7030
 * §4.5.2, §3.2.3), as base64 of DER `application/csrattrs`; elsewhere nothing, which §4.5.2 lets it
 * say with 204 No Content. Not counted against the endpoint's request budget: it enrols nothing.
 */
import { challengePasswordCsrAttrs } from '../../x509/csr-attributes';
import { endpointCa } from '../endpoint';
import { asksChallenge } from '../enroller';
import { sendBase64 } from '../framing';
import type { EstHandler } from '../route-types';

export const csrattrs: EstHandler = async ({ res, params, services }) => {
  const endpoint = await endpointCa(services, params.label); // an unknown label is a 404 here too
  if (asksChallenge(endpoint)) return sendBase64(res, 'application/csrattrs', challengePasswordCsrAttrs());
  res.status(204).end();
};
