/** Which CA, profile and challenge a SCEP request enrols with (lib/enrolment/endpoint.ts): by the URL's label. */
import { resolveEndpoint, type ResolvedEndpoint } from '../enrolment/endpoint';
import type { ScepServices } from './route-types';

export function scepEndpoint(services: ScepServices, label: string | undefined, now = new Date()): Promise<ResolvedEndpoint> {
  return resolveEndpoint(services, 'SCEP', label, now);
}
