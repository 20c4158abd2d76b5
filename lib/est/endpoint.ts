/**
 * Which CA and profile a request enrols with: the URL's label (none: the default endpoint), then its
 * CA — named by serial or name in the options, or the default CA. An unknown label and a CA that is
 * gone or disabled are a 404: nothing can be enrolled there.
 */
import { CaError } from '../ca/errors';
import { defaultCa, findCa } from '../ca/lookup';
import type { CaRecord } from '../ports';
import { estError } from './framing';
import type { EstServices } from './route-types';

export interface ResolvedEndpoint {
  ca: CaRecord;
  profile: string;
  /** The label, '' for the URLs without one. */
  label: string;
}

export async function endpointCa(services: EstServices, label: string | undefined, now = new Date()): Promise<ResolvedEndpoint> {
  const key = label ?? '';
  const endpoint = services.endpoints.get(key);
  if (!endpoint) throw estError(404, `No EST endpoint is labelled ${JSON.stringify(key)}.`);
  let ca: CaRecord;
  try {
    ca = endpoint.ca === null ? await defaultCa(services.store, now, services.defaultCa) : await findCa(services.store, endpoint.ca);
  } catch (e) {
    if (e instanceof CaError) throw estError(404, `No certificate authority enrols here: ${e.message}`);
    throw e;
  }
  return { ca, profile: endpoint.profile ?? services.defaultProfile, label: key };
}
