/**
 * Requests that wait for an operator (docs/guides/est.md, docs/guides/scep.md: an endpoint with `approval`).
 *
 * A new enrolment that is authenticated and signable — its CSR verified, its challenge checked, the
 * profile's checks passed — is kept as `pending` (a one-time challenge is used up in the same
 * transaction) and the device is told to come back: EST 202 with `Retry-After` (RFC 7030 §4.2.3),
 * SCEP PENDING (RFC 8894 §3.3.2). Its repetitions are matched to it by a key — EST: the
 * authenticated identity and the CSR's public key; SCEP: the transactionID and the signer's public key
 * (a CertPoll, or micromdm's re-sent PKCSReq) — and get its state: wait, the certificate, or the
 * refusal. Never a second request, never a second certificate: the key is unique in the store, and a
 * decision is written only while the request waits.
 *
 * An operator approves (`ca-admin approve_enrolment_request`): the one issuance service signs it with
 * the device as the requester (lib/enrolment/enrol.ts), in the transaction that marks it approved by
 * that operator — the `enrolment.approved` event names the operator, `certificate.issued` the device.
 * Renewals (authenticated by the certificate being renewed) do not wait: the device was approved once.
 */
import * as crypto from 'crypto';
import { CaError } from '../ca/errors';
import type { KeyBackends } from '../ca/key-backends';
import { defaultProfiles, type Profiles } from '../ca/profiles';
import { DEFAULT_PROFILE_NAME } from '../ports/ca-fields';
import {
  actingAs,
  type Actor,
  type CertificateRecord,
  type EnrolmentRequestFilter,
  type EnrolmentRequestRecord,
  type Store,
} from '../ports';
import { parseCsr, type ParsedCsr } from '../x509/csr';
import { formatRfc4514 } from '../x509/rfc4514';
import { enrol, enrolmentPolicy, enrolmentRequest, readCsr, type EnrolmentServices, type EnrolmentTarget } from './enrol';
import type { ResolvedEndpoint } from './endpoint';
import { EnrolmentError } from './errors';

/** What a device is told about its request. */
export type HeldAnswer =
  | { status: 'pending'; request: EnrolmentRequestRecord }
  | { status: 'approved'; request: EnrolmentRequestRecord; certificate: CertificateRecord }
  | { status: 'refused'; request: EnrolmentRequestRecord; reason: string };

const sha256Hex = (...parts: (string | Buffer)[]) => {
  const hash = crypto.createHash('sha256');
  // Each part with its length: no two different lists of parts hash alike.
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  }
  return hash.digest('hex');
};

/** An EST request's key: who authenticated (`identity`) and the CSR's public key (SubjectPublicKeyInfo DER). */
export function estRequestKey(identity: string, csr: ParsedCsr): string {
  return sha256Hex('est', identity, csr.publicKey.der);
}

/** A SCEP request's key: its transactionID and the public key that signed it (a PKCSReq's is its CSR's). */
export function scepRequestKey(transactionId: string, signerPublicKeyDer: Buffer): string {
  return sha256Hex('scep', transactionId, signerPublicKeyDer);
}

/** The store's requests waiting for approval. */
function requests(store: Store) {
  return store.enrolmentRequests;
}

/** What `request`'s device is told now. */
async function answerOf(store: Store, request: EnrolmentRequestRecord): Promise<HeldAnswer> {
  if (request.status === 'refused') return { status: 'refused', request, reason: request.reason ?? 'Refused by an operator.' };
  if (request.status === 'approved' && request.certificateSerial !== null) {
    const certificate = await store.findCertificate(request.caId, request.certificateSerial);
    if (certificate) return { status: 'approved', request, certificate };
    throw new EnrolmentError(404, 'The certificate of this approved request is no longer kept.', 'badCertId');
  }
  return { status: 'pending', request };
}

/** The answer to a repetition of the request keyed `key` at `endpoint`, or null when there is none. */
export async function heldAnswer(store: Store, protocol: string, endpoint: ResolvedEndpoint, key: string): Promise<HeldAnswer | null> {
  const request = await requests(store).findEnrolmentRequest(protocol, endpoint.label, key);
  return request && request.caId === endpoint.ca.id ? answerOf(store, request) : null;
}

/** A raced repetition: another request with the same key was kept first. */
class RepeatedRequest extends Error {}

/**
 * Keep `csr` (authenticated, as `requester`) waiting for approval at `endpoint`. The caller has looked
 * for a repetition already (`heldAnswer`, before its challenge, which a kept request has spent); one
 * racing it is answered as its request stands. `link` runs in the transaction that keeps it (a
 * one-time challenge used up); if it throws, nothing is kept.
 */
export async function holdForApproval(
  services: EnrolmentServices,
  endpoint: ResolvedEndpoint,
  csr: ParsedCsr,
  o: { protocol: string; key: string; requester: Actor; link?: (tx: Store) => Promise<void> },
): Promise<HeldAnswer> {
  const { store } = services;
  const { profile, validityDays } = endpoint;
  // Signable now — profile, CA, the endpoint's name policy — or refused before anyone is asked.
  enrolmentRequest(services, endpoint, csr, await enrolmentPolicy(services, endpoint));
  try {
    const request = await store.transaction(async (tx) => {
      const kept = await requests(tx).createEnrolmentRequest({
        protocol: o.protocol,
        label: endpoint.label,
        caId: endpoint.ca.id,
        profile,
        validityDays,
        csrDer: csr.der,
        requester: o.requester,
        requestKey: o.key,
      });
      if (!kept) throw new RepeatedRequest();
      await o.link?.(tx);
      return kept;
    });
    return { status: 'pending', request };
  } catch (e) {
    if (!(e instanceof RepeatedRequest)) throw e;
    const winner = await heldAnswer(store, o.protocol, endpoint, o.key);
    if (!winner) throw new EnrolmentError(400, 'The request was answered meanwhile; ask again.');
    return winner;
  }
}

/** Requests as an operator lists them: waiting ones by default newest first. */
/** What a kept request's CSR asks for, as an operator reads it: its subject, else its first subjectAltName. */
export function requestedName(r: EnrolmentRequestRecord): string {
  const csr = parseCsr(r.csrDer);
  if (csr.subject.length) return formatRfc4514(csr.subject);
  const san = csr.requestedExtensions.find((e) => e.type === 'subject_alternative_name')?.value as
    { type: string; value: string }[] | undefined;
  return san?.length ? `${san[0].type}:${san[0].value}` : '(no name)';
}

export function listEnrolmentRequests(store: Store, filter: EnrolmentRequestFilter = {}): Promise<EnrolmentRequestRecord[]> {
  return requests(store).listEnrolmentRequests(filter);
}

/** The request `id` while it waits; else `CaError` (not found, or decided already). */
async function waiting(store: Store, id: number): Promise<EnrolmentRequestRecord> {
  const request = await requests(store).getEnrolmentRequest(id);
  if (!request) throw new CaError('not-found', `${id}: Enrolment request not found.`);
  if (request.status !== 'pending') throw new CaError('conflict', `Enrolment request ${id} was ${request.status} already.`);
  return request;
}

/** Another operator decided meanwhile: the certificate signed for this decision is rolled back. */
class DecidedMeanwhile extends Error {}

/** What approving signs with: the store, the CAs' key backends, and the router's profiles. */
export interface EnrolmentApprovalOptions {
  store: Store;
  keyBackends: KeyBackends;
  /** The router's profiles (default: the built-in ones, `defaultProfiles()`). */
  profiles?: Profiles;
  /** The router's default profile, for a request of an endpoint without one (default `webserver`). */
  defaultProfile?: string;
  /** The router's default validity where a profile names none (`CA_DEFAULT_EXPIRES`). */
  defaultExpiresMs?: number;
}

/**
 * Approve request `id` as `operator`: its certificate, signed at its CA with its profile, validity and the
 * device as requester, stored in the transaction that marks the request approved. A request decided
 * already (even by a racing approval) is a `CaError('conflict')`, and nothing is issued.
 */
export async function approveEnrolmentRequest(
  options: EnrolmentApprovalOptions,
  id: number,
  operator: Actor,
): Promise<{ request: EnrolmentRequestRecord; certificate: CertificateRecord }> {
  const services: EnrolmentServices = {
    store: options.store,
    signing: {
      keyBackends: options.keyBackends,
      profiles: options.profiles ?? defaultProfiles(),
      defaultExpiresMs: options.defaultExpiresMs,
      intents: options.store,
    },
    defaultProfile: options.defaultProfile ?? DEFAULT_PROFILE_NAME,
  };
  const request = await waiting(services.store, id);
  const ca = await services.store.getCa(request.caId);
  if (!ca) throw new CaError('not-found', `The certificate authority of enrolment request ${id} is gone.`);
  const target: EnrolmentTarget = { ca, profile: request.profile, validityDays: request.validityDays };
  const store = actingAs(services.store, operator);
  let certificate: CertificateRecord;
  try {
    const link = async (tx: Store, issued: CertificateRecord) => {
      const decided = await requests(tx).decideEnrolmentRequest(
        id,
        { status: 'approved', certificateSerial: issued.serial },
        operator,
        new Date(),
      );
      if (!decided) throw new DecidedMeanwhile();
    };
    certificate = await enrol({ ...services, store }, target, await readCsr(request.csrDer, services.verifier), request.requester, {
      link,
    });
  } catch (e) {
    if (e instanceof DecidedMeanwhile) throw new CaError('conflict', `Enrolment request ${id} was decided meanwhile.`);
    if (e instanceof EnrolmentError) throw new CaError('invalid', e.message);
    throw e;
  }
  const approved = await requests(services.store).getEnrolmentRequest(id);
  return { request: approved ?? request, certificate };
}

/** Refuse request `id` as `operator`, with `reason` (what the device is told). */
export async function refuseEnrolmentRequest(
  store: Store,
  id: number,
  operator: Actor,
  reason: string | null,
): Promise<EnrolmentRequestRecord> {
  await waiting(store, id);
  const text = reason?.trim() || 'The request was refused by an operator.';
  const decided = await actingAs(store, operator).transaction((tx) =>
    requests(tx).decideEnrolmentRequest(id, { status: 'refused', reason: text }, operator, new Date()),
  );
  if (!decided) throw new CaError('conflict', `Enrolment request ${id} was decided meanwhile.`);
  return (await requests(store).getEnrolmentRequest(id)) as EnrolmentRequestRecord;
}
