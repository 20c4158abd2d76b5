/**
 * Which CA and profile a request enrols with: the URL's label (none: the label-less endpoint), then
 * its CA — named by serial or name in the options, or the default CA. An unknown label and a CA that
 * is gone or disabled are a 404: nothing can be enrolled there.
 */
import { CaError } from '../ca/errors';
import { defaultCa, findCa } from '../ca/lookup';
import type { CaRecord, Store } from '../ports';
import type { EnrolmentEndpoint } from './endpoint-options';
import type { EnrolmentNamePolicy } from './name-policy';
import type { ChallengeWebhook } from './challenge-webhook';
import { EnrolmentError } from './errors';

export interface ResolvedEndpoint {
  ca: CaRecord;
  profile: string;
  /** The static challenge password requests must carry; null: none is accepted. */
  challenge: string | null;
  /** The label, '' for the URLs without one. */
  label: string;
  /** The name policy (lib/enrolment/name-policy.ts); null: any name. */
  names: EnrolmentNamePolicy | null;
  /** The webhook deciding challenges neither static nor one-time; null: none. */
  challengeWebhook: ChallengeWebhook | null;
}

/** What resolving needs of the module's services. */
export interface EndpointServices {
  store: Store;
  /** By label; '' for the URLs without one. */
  endpoints: ReadonlyMap<string, EnrolmentEndpoint>;
  /** The router's default profile (`CA_DEFAULT_PROFILE`). */
  defaultProfile: string;
  /** `CA_DEFAULT_CA`, the preferred default CA; undefined: the usable CA that expires last. */
  defaultCa: string | undefined;
}

export async function resolveEndpoint(
  services: EndpointServices,
  protocol: 'EST' | 'SCEP',
  label: string | undefined,
  now = new Date(),
): Promise<ResolvedEndpoint> {
  const key = label ?? '';
  const endpoint = services.endpoints.get(key);
  if (!endpoint) throw new EnrolmentError(404, `No ${protocol} endpoint is labelled ${JSON.stringify(key)}.`);
  let ca: CaRecord;
  try {
    ca = endpoint.ca === null ? await defaultCa(services.store, now, services.defaultCa) : await findCa(services.store, endpoint.ca);
  } catch (e) {
    if (e instanceof CaError) throw new EnrolmentError(404, `No certificate authority enrols here: ${e.message}`);
    throw e;
  }
  return {
    ca,
    profile: endpoint.profile ?? services.defaultProfile,
    challenge: endpoint.challenge,
    label: key,
    names: endpoint.names,
    challengeWebhook: endpoint.challengeWebhook,
  };
}
