/**
 * Managing the enrolment endpoints kept in the database (docs/guides/est.md, docs/guides/scep.md; `ca-admin
 * create_enrolment_endpoint`, `list_enrolment_endpoints`, `edit_enrolment_endpoint`,
 * `delete_enrolment_endpoint`): every setting checked before anything is written, the static challenge
 * kept as its SHA-256 only, a challenge webhook only as "the options' webhook of the protocol" (no URL,
 * no secret in the database). The options' endpoints win for their label (endpoint.ts), so a stored
 * endpoint with an option's label is kept but not used while the options name it.
 */
import * as crypto from 'crypto';
import { CaError } from '../ca/errors';
import { defaultProfiles } from '../ca/profiles';
import {
  StoreConflictError,
  type CaRecord,
  type EnrolmentEndpointStore,
  type EnrolmentNamePolicy,
  type EnrolmentProtocol,
  type Store,
  type StoredEnrolmentEndpoint,
  type StoredEnrolmentEndpointPatch,
} from '../ports';
import { X509Error } from '../x509/errors';
import { parseNameOid } from '../x509/name';
import { storedLabelProblem } from './endpoint-labels';
import { isRequestBudget, MAX_REQUESTS_PER_MINUTE } from './rate-limit';

/** What an operator sets (fields left out: the default on create, unchanged on edit). */
export interface EnrolmentEndpointSettings {
  ca?: CaRecord;
  /** null: the router's default profile. */
  profile?: string | null;
  /** The static challenge's secret (SCEP); null: none. Kept only as its SHA-256. */
  challenge?: string | null;
  /** Challenges neither static nor one-time go to the protocol's `challengeWebhook` of the router's options. */
  challengeWebhook?: boolean;
  /** At most this many enrolment requests a minute, per process (lib/enrolment/rate-limit.ts); null: no limit. */
  requestsPerMinute?: number | null;
  approval?: boolean;
  /** null: any name. Its entries are checked by the caller (ca-admin: as a CA's ACME policy's). */
  names?: EnrolmentNamePolicy | null;
  /** null: the profile's or the CA's default. */
  validityDays?: number | null;
  enabled?: boolean;
}

/** What the checks need of the router's configuration (default: the built-in profiles, `defaultProfiles()`). */
export interface EnrolmentEndpointContext {
  /** The profiles configured (lib/ca/profiles.ts): the router's, so that a profile it does not know is refused here. */
  profiles: { has(name: string): boolean };
}

/** `est`/`scep`, any case, as the protocol. */
export function parseProtocol(text: string): EnrolmentProtocol {
  const upper = text.toUpperCase();
  if (upper === 'EST' || upper === 'SCEP') return upper;
  throw new CaError('invalid', `${text}: the protocol is est or scep.`);
}

/** `CN,O` → ['CN', 'O'], each a name attribute (alias or dotted OID) the engine knows; `what` names the field in the error. */
export function parseSubjectAttributes(text: string, what: string): string[] {
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  for (const name of names) {
    try {
      parseNameOid(name);
    } catch (e) {
      if (e instanceof X509Error) throw new CaError('invalid', `${what}: ${name} is not a name attribute (e.g. CN, O, OU, C).`);
      throw e;
    }
  }
  return [...new Set(names)];
}

/** The kind of challenge an endpoint asks for, as the CLI's list and the admin pages name it (never the challenge). */
export const challengeKind = (e: StoredEnrolmentEndpoint): 'webhook' | 'static' | 'none' =>
  e.challengeWebhook ? 'webhook' : e.challengeSha256 ? 'static' : 'none';

/** How operators and errors name an endpoint: `est/LABEL`, `scep/LABEL` (as create_enrolment_challenge). */
export const endpointName = (protocol: EnrolmentProtocol, label: string) => `${protocol.toLowerCase()}/${label}`;

/** A new static challenge: 160 random bits, in a form every client's challenge field takes (letters and digits). */
export function generateChallenge(): string {
  return crypto.randomBytes(20).toString('hex');
}

const sha256Hex = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

function endpointStore(store: Store): EnrolmentEndpointStore {
  return store.enrolmentEndpoints;
}

/** The settings as the row's fields, each checked; a CaError('invalid') for the first bad one. */
function checkedPatch(
  protocol: EnrolmentProtocol,
  s: EnrolmentEndpointSettings,
  context: EnrolmentEndpointContext,
): StoredEnrolmentEndpointPatch {
  const patch: StoredEnrolmentEndpointPatch = {};
  if (s.ca !== undefined) patch.caId = s.ca.id;
  if (s.profile !== undefined) {
    if (s.profile !== null && !context.profiles.has(s.profile)) throw new CaError('invalid', `${s.profile}: Profile is not defined.`);
    patch.profile = s.profile;
  }
  if (s.challenge !== undefined) {
    if (s.challenge !== null && protocol === 'EST') {
      // EST authenticates its requests with a user or a client certificate (docs/guides/est.md): a challenge would never be read.
      throw new CaError(
        'invalid',
        'EST endpoints take no static challenge password: devices authenticate as a user (Basic) or with a certificate ' +
          "(--challenge webhook asks the options' est.challengeWebhook).",
      );
    }
    if (s.challenge === '') throw new CaError('invalid', 'The challenge password must not be empty.');
    patch.challengeSha256 = s.challenge === null ? null : sha256Hex(s.challenge);
  }
  if (s.challengeWebhook !== undefined) patch.challengeWebhook = s.challengeWebhook;
  if (s.requestsPerMinute !== undefined) {
    const rate = s.requestsPerMinute;
    if (rate !== null && !isRequestBudget(rate)) {
      throw new CaError('invalid', `${rate}: the budget is a whole number of requests a minute, from 1 to ${MAX_REQUESTS_PER_MINUTE}.`);
    }
    patch.requestsPerMinute = rate;
  }
  if (s.approval !== undefined) patch.approval = s.approval;
  if (s.names !== undefined) patch.names = s.names;
  if (s.validityDays !== undefined) {
    if (s.validityDays !== null && (!Number.isInteger(s.validityDays) || s.validityDays < 1)) {
      throw new CaError('invalid', `${s.validityDays}: the validity is a whole number of days, at least 1.`);
    }
    patch.validityDays = s.validityDays;
  }
  if (s.enabled !== undefined) patch.enabled = s.enabled;
  return patch;
}

export async function createEnrolmentEndpoint(
  store: Store,
  protocol: EnrolmentProtocol,
  label: string,
  settings: EnrolmentEndpointSettings & { ca: CaRecord },
  context: EnrolmentEndpointContext = { profiles: defaultProfiles() },
): Promise<StoredEnrolmentEndpoint> {
  const problem = storedLabelProblem(protocol, label);
  if (problem) throw new CaError('invalid', problem);
  const patch = checkedPatch(protocol, settings, context);
  try {
    return await endpointStore(store).createEnrolmentEndpoint({
      protocol,
      label,
      caId: settings.ca.id,
      profile: patch.profile ?? null,
      challengeSha256: patch.challengeSha256 ?? null,
      approval: patch.approval ?? false,
      names: patch.names ?? null,
      validityDays: patch.validityDays ?? null,
      requestsPerMinute: patch.requestsPerMinute ?? null,
      challengeWebhook: patch.challengeWebhook ?? false,
      enabled: patch.enabled ?? true,
    });
  } catch (e) {
    if (e instanceof StoreConflictError)
      throw new CaError('invalid', `${endpointName(protocol, label)}: the enrolment endpoint exists already.`);
    throw e;
  }
}

const notFound = (protocol: EnrolmentProtocol, label: string) =>
  new CaError('not-found', `${endpointName(protocol, label)}: Enrolment endpoint not found.`);

export async function editEnrolmentEndpoint(
  store: Store,
  protocol: EnrolmentProtocol,
  label: string,
  settings: EnrolmentEndpointSettings,
  context: EnrolmentEndpointContext = { profiles: defaultProfiles() },
): Promise<StoredEnrolmentEndpoint> {
  const patch = checkedPatch(protocol, settings, context);
  const edited = await endpointStore(store).updateEnrolmentEndpoint(protocol, label, patch);
  if (!edited) throw notFound(protocol, label);
  return edited;
}

/** The endpoint, for an edit that changes part of its name policy; a CaError('not-found') when there is none. */
export async function findStoredEndpoint(store: Store, protocol: EnrolmentProtocol, label: string): Promise<StoredEnrolmentEndpoint> {
  const found = await endpointStore(store).findEnrolmentEndpoint(protocol, label);
  if (!found) throw notFound(protocol, label);
  return found;
}

export function listEnrolmentEndpoints(store: Store): Promise<StoredEnrolmentEndpoint[]> {
  return endpointStore(store).listEnrolmentEndpoints();
}

export async function deleteEnrolmentEndpoint(store: Store, protocol: EnrolmentProtocol, label: string): Promise<void> {
  if (!(await endpointStore(store).deleteEnrolmentEndpoint(protocol, label))) throw notFound(protocol, label);
}
