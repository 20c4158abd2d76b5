/** freshestCRL, a.k.a. delta CRL distribution point (RFC 5280 §4.2.1.15), docs/COMPATIBILITY.md §2 */
import { EXTENSION_OIDS } from '../oids';
import { distributionPointsCodec } from './distribution-points';

// RFC 5280: "The extension MUST be marked as non-critical."
export const freshestCrlCodec = distributionPointsCodec('freshest_crl', EXTENSION_OIDS.freshest_crl, false);
