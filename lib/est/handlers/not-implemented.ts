/**
 * EST operations this server does not offer yet: 501 with the reason. Full CMC is optional (RFC 7030
 * §4.3); re-enrolment with the TLS client certificate (§4.2.2) and server-side key generation (§4.4)
 * are to come (README "EST").
 */
import { estError } from '../framing';
import type { EstHandler } from '../route-types';

const notOffered =
  (operation: string): EstHandler =>
  async () => {
    throw estError(501, `This EST server does not offer ${operation}.`);
  };

export const simplereenrollNotOffered = notOffered('simplereenroll');
export const fullcmcNotOffered = notOffered('fullcmc');
export const serverkeygenNotOffered = notOffered('serverkeygen');
