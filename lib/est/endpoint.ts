/** Which CA and profile an EST request enrols with (lib/enrolment/endpoint.ts): by the URL's label. */
import { resolveEndpoint, type ResolvedEndpoint } from '../enrolment/endpoint';
import type { EstServices } from './route-types';

export function endpointCa(services: EstServices, label: string | undefined, now = new Date()): Promise<ResolvedEndpoint> {
  return resolveEndpoint(services, 'EST', label, now);
}
