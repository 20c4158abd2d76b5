/**
 * `GET csrattrs` (RFC 7030 §4.5): the attributes the server wants in a CSR. It asks for none — the
 * profile decides the extensions — which §4.5.2 lets it say with 204 No Content.
 */
import { endpointCa } from '../endpoint';
import type { EstHandler } from '../route-types';

export const csrattrs: EstHandler = async ({ res, params, services }) => {
  await endpointCa(services, params.label); // an unknown label is a 404 here too
  res.status(204).end();
};
