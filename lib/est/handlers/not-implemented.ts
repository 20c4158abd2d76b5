/** EST operations this server does not offer: 501 with the reason. Full CMC is optional (RFC 7030 §4.3). */
import { estError } from '../framing';
import type { EstHandler } from '../route-types';

const notOffered =
  (operation: string): EstHandler =>
  async () => {
    throw estError(501, `This EST server does not offer ${operation}.`);
  };

export const fullcmcNotOffered = notOffered('fullcmc');
