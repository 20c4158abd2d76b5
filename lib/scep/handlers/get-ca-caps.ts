/** `GET ?operation=GetCACaps` (RFC 8894 §3.5.2): what this server accepts, as text. */
import { scepCapabilities } from '../capabilities';
import type { ScepHandler } from '../route-types';
import { sendScep } from '../transport';
import { scepEndpoint } from '../endpoint';

export const getCaCaps: ScepHandler = async ({ res, params, services }) => {
  await scepEndpoint(services, params.label); // an unknown label is a 404 here too
  sendScep(res, 'text/plain', Buffer.from(scepCapabilities(services.legacyAlgorithms), 'latin1'));
};
