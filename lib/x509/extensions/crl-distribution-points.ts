/** cRLDistributionPoints (RFC 5280 §4.2.1.13), docs/COMPATIBILITY.md §2 */
import { EXTENSION_OIDS } from '../oids';
import { distributionPointsCodec } from './distribution-points';

export const crlDistributionPointsCodec = distributionPointsCodec('crl_distribution_points', EXTENSION_OIDS.crl_distribution_points, null);
