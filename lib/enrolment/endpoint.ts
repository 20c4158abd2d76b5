/**
 * Which CA and profile a request enrols with: the URL's label (none: the label-less endpoint), then
 * its CA — named by serial or name in the options, or the default CA. An unknown label and a CA that
 * is gone or disabled are a 404: nothing can be enrolled there.
 *
 * A label the options do not name may be an endpoint kept in the database (`ca-admin
 * create_enrolment_endpoint`, stored-endpoint.ts); the options win for their labels — code is the
 * deployer's word. A stored endpoint's challenge webhook is the protocol's of the options.
 */
import { CaError } from '../ca/errors';
import { defaultCa, findCa } from '../ca/lookup';
import { quoteClientValue } from '../http/quote';
import type { CaRecord, EnrolmentNamePolicy, Store } from '../ports';
import type { EnrolmentEndpoint } from './endpoint-options';
import { unconfiguredChallengeWebhook, type ChallengeWebhook } from './challenge-webhook';
import { EnrolmentError } from './errors';
import type { EndpointRateLimits } from './rate-limit';
import { storedEndpoint } from './stored-endpoint';

export interface ResolvedEndpoint {
  ca: CaRecord;
  profile: string;
  /** The static challenge password requests must carry; null: none is accepted. */
  challenge: string | null;
  /** The label, '' for the URLs without one. */
  label: string;
  /** Lower-case hex SHA-256 of the static challenge of an endpoint kept in the database (which keeps no secret); null: none. */
  challengeSha256: string | null;
  /** Validity of the certificates in days, clamped by the CA; null: the profile's or the CA's default. */
  validityDays: number | null;
  /** New enrolments wait for an operator (lib/enrolment/approval.ts); renewals do not. */
  approval: boolean;
  /** The name policy (lib/enrolment/name-policy.ts); null: any name. */
  names: EnrolmentNamePolicy | null;
  /** The webhook deciding challenges neither static nor one-time; null: none. */
  challengeWebhook: ChallengeWebhook | null;
  /** The endpoint's budget of enrolment requests a minute (lib/enrolment/rate-limit.ts); null: none. */
  requestsPerMinute: number | null;
}

/** What resolving needs of the module's services. */
export interface EndpointServices {
  store: Store;
  /** Where the CAs are read from: the router's CA cache (lib/cache/ca-cache.ts), else the store. */
  cas?: Pick<Store, 'listCas'>;
  /** By label; '' for the URLs without one. */
  endpoints: ReadonlyMap<string, EnrolmentEndpoint>;
  /** The router's default profile (`CA_DEFAULT_PROFILE`). */
  defaultProfile: string;
  /** `CA_DEFAULT_CA`, the preferred default CA; undefined: the usable CA that expires last. */
  defaultCa: string | undefined;
  /** The module's budgets of enrolment requests (lib/enrolment/rate-limit.ts); none: no endpoint is limited. */
  rateLimits?: EndpointRateLimits;
}

export async function resolveEndpoint(
  services: EndpointServices,
  protocol: 'EST' | 'SCEP',
  label: string | undefined,
  now = new Date(),
): Promise<ResolvedEndpoint> {
  const key = label ?? '';
  const endpoint = services.endpoints.get(key);
  if (!endpoint) {
    const stored = await storedEndpoint(services.store, protocol, key, services.defaultProfile, now);
    if (stored) {
      // A stored endpoint keeps no webhook URL or secret: `--challenge webhook` means the options' of the
      // protocol (`est.challengeWebhook`, `scep.challengeWebhook`); none there refuses, logged (challenge-webhook.ts).
      const { usesChallengeWebhook, ...settings } = stored;
      const name = protocol === 'EST' ? 'est' : 'scep';
      const challengeWebhook = usesChallengeWebhook
        ? (services.endpoints.get('')?.challengeWebhook ?? unconfiguredChallengeWebhook(name))
        : null;
      return { ...settings, challenge: null, label: key, challengeWebhook };
    }
    throw new EnrolmentError(404, `No ${protocol} endpoint is labelled ${quoteClientValue(key)}.`);
  }
  let ca: CaRecord;
  try {
    const cas = services.cas ?? services.store;
    ca = endpoint.ca === null ? await defaultCa(cas, now, services.defaultCa) : await findCa(cas, endpoint.ca);
  } catch (e) {
    if (e instanceof CaError) throw new EnrolmentError(404, `No certificate authority enrols here: ${e.message}`);
    throw e;
  }
  return {
    ca,
    profile: endpoint.profile ?? services.defaultProfile,
    challenge: endpoint.challenge,
    label: key,
    challengeSha256: null,
    validityDays: endpoint.validityDays,
    approval: endpoint.approval,
    names: endpoint.names,
    challengeWebhook: endpoint.challengeWebhook,
    requestsPerMinute: endpoint.requestsPerMinute,
  };
}
