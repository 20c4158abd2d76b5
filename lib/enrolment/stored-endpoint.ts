/**
 * An enrolment endpoint kept in the database (lib/ports/enrolment-endpoints.ts), as a request resolves
 * it when the options do not name its label (endpoint.ts): one indexed lookup by protocol and label,
 * then the CA by id. No cache: `ca-admin` edits the rows from another process, which an in-process
 * cache would not hear of, and disabling an endpoint must take effect at once; a request to a label of
 * the options never reaches here.
 */
import { isUsable } from '../ca/lookup';
import type { CaRecord, EnrolmentNamePolicy, EnrolmentProtocol, Store } from '../ports';
import { EnrolmentError } from './errors';

/** What a stored endpoint says of a request (endpoint.ts adds the label, and no plain challenge: only its hash is kept). */
export interface StoredEndpointResolution {
  ca: CaRecord;
  profile: string;
  challengeSha256: string | null;
  validityDays: number | null;
  approval: boolean;
  names: EnrolmentNamePolicy | null;
  /** Challenges neither static nor one-time go to the protocol's webhook of the options (endpoint.ts). */
  usesChallengeWebhook: boolean;
  requestsPerMinute: number | null;
}

/** The stored endpoint of `protocol` at `label` (its profile, else `defaultProfile`), or null when there is none or it is disabled; a CA that cannot sign is a 404. */
export async function storedEndpoint(
  store: Store,
  protocol: EnrolmentProtocol,
  label: string,
  defaultProfile: string,
  now: Date,
): Promise<StoredEndpointResolution | null> {
  if (label === '') return null;
  const stored = await store.enrolmentEndpoints.findEnrolmentEndpoint(protocol, label);
  if (!stored || !stored.enabled) return null;
  const ca = await store.getCa(stored.caId);
  if (!ca || !isUsable(ca, now))
    throw new EnrolmentError(404, `No certificate authority enrols here: the ${protocol} endpoint's CA cannot sign.`);
  return {
    ca,
    profile: stored.profile ?? defaultProfile,
    challengeSha256: stored.challengeSha256,
    validityDays: stored.validityDays,
    approval: stored.approval,
    names: stored.names,
    usesChallengeWebhook: stored.challengeWebhook,
    requestsPerMinute: stored.requestsPerMinute,
  };
}
