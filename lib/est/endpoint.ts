/** Which CA and profile an EST request enrols with (lib/enrolment/endpoint.ts): by the URL's label. */
import { resolveEndpoint, type ResolvedEndpoint } from '../enrolment/endpoint';
import { spendRequest } from '../enrolment/rate-limit';
import type { EstServices } from './route-types';

export function endpointCa(services: EstServices, label: string | undefined, now = new Date()): Promise<ResolvedEndpoint> {
  return resolveEndpoint(services, 'EST', label, now);
}

/** The endpoint of an operation that enrols (simpleenroll, simplereenroll, serverkeygen), counted against its budget: else 429. */
export async function enrollingEndpoint(services: EstServices, label: string | undefined): Promise<ResolvedEndpoint> {
  const endpoint = await endpointCa(services, label);
  spendRequest(services.rateLimits, 'EST', endpoint);
  return endpoint;
}
