/**
 * The OCSP responder (RFC 6960, the RFC 5019 profile): request bytes in, response bytes out, never an
 * exception — every failure is an OCSP status, because OCSP clients understand nothing else.
 *
 * - Unparsable request, or a critical extension we do not know → `malformedRequest`.
 * - A CA we do not have, or a CertID naming another issuer → `unauthorized` (RFC 6960 §2.3: not authoritative).
 * - Per certificate: `good`, `revoked` (time = the stored revocation date, reason), or — unlike the
 *   original, which answered errors (docs/reference/differences.md D19) — `unknown` for a serial this CA never issued (RFC 6960 §2.2).
 * - A key backend that cannot be reached (an HSM token removed) → `tryLater` (RFC 6960 §4.2.1), still
 *   serving the answers it keeps; anything else failing inside (store down, key unusable) → `internalError`.
 *   The responder keeps answering.
 *
 * Statuses come from the store (an indexed lookup). A signed answer without a nonce (RFC 5019 clients
 * send none) is kept for up to a minute together with the CA's revocation version, which is read
 * again at most every `versionCheckMs` (default 1 s) and at once after a revocation through this
 * process — the same rule as the CRLs (crls.ts) — so a revocation made through any instance shows
 * within about a second. `unknown` answers are never kept (the certificate may be issued next).
 * Nonces are echoed (RFC 8954); an answer with a nonce is signed for that request alone. Each answer
 * is counted by the metrics sink it is given (docs/operations/metrics.md: `ca_api_ocsp_responses_total`).
 */
import {
  actingAs,
  KeyBackendUnavailableError,
  NO_METRICS,
  type CaRecord,
  type MetricsSink,
  type OcspAnswer,
  type RevocationStore,
  type Store,
} from '../ports';
import { X509Error } from '../x509/errors';
import { certIdMatchesIssuer } from '../x509/revocation/cert-id';
import { parseOcspRequest, type CertId } from '../x509/revocation/ocsp-request';
import { buildOcspResponse, ocspErrorResponse, type CertStatus } from '../x509/revocation/ocsp-response';
import { LIBRARY_ACTOR } from './actors';
import { caFacts, defaultHashFor } from './ca-facts';
import type { KeyBackends } from './key-backends';
import { caAsResponder, OcspDelegates, type OcspSigningKey } from './ocsp-delegate';
import type { Profiles } from './profiles';

/** `cert`: end-entity certificates of the CA; `ca`: its child CAs (the `ocsp/{S}/ca/` URL). */
export type OcspTarget = 'cert' | 'ca';

export interface OcspSettings {
  /** Who signs: a delegated responder certificate (default) or the CA key itself. */
  signWith?: 'delegate' | 'ca';
  /** How long a kept answer is served before the revocation version is read again. Default 1000 ms. */
  versionCheckMs?: number;
  now?: () => Date;
  /** Where unexpected failures are reported (never with key material). */
  logError?: (message: string, error: unknown) => void;
  /** Told the answer of every request. */
  metrics?: MetricsSink;
}

/** How long a signed answer is reused at most, whatever else happens. */
const ANSWER_TTL_MS = 60_000;
const MAX_KEPT_ANSWERS = 10_000;

interface KeptAnswer {
  caId: number;
  der: Buffer;
  answer: OcspAnswer;
  version: number;
  checkedAt: number;
  until: number;
}

export class OcspResponder {
  readonly delegates: OcspDelegates;
  private readonly now: () => Date;
  private readonly answers = new Map<string, KeptAnswer>();

  constructor(
    private readonly store: Store & RevocationStore,
    private readonly keyBackends: KeyBackends,
    profiles: Profiles,
    private readonly settings: OcspSettings = {},
  ) {
    // Responders made while serving OCSP are the library's own doing, not an anonymous SQL write.
    this.delegates = new OcspDelegates(actingAs(store, LIBRARY_ACTOR), keyBackends, profiles);
    this.now = settings.now ?? (() => new Date());
  }

  /** Something was revoked through this process: kept answers are checked against the store at once. */
  revocationSeen(): void {
    for (const answer of this.answers.values()) answer.checkedAt = -Infinity;
  }

  /** A kept answer that is still right, or null. The hot path: no database read most of the time. */
  private async kept(key: string, now: number): Promise<KeptAnswer | null> {
    const answer = this.answers.get(key);
    if (!answer || now >= answer.until) return null;
    if (now - answer.checkedAt < (this.settings.versionCheckMs ?? 1000)) return answer;
    if ((await this.store.revocationVersion(answer.caId)) !== answer.version) return null;
    answer.checkedAt = now;
    return answer;
  }

  /** The DER OCSPResponse for a request to the responder of CA `caSerial`. */
  async respond(caSerial: string, target: OcspTarget, requestDer: Buffer | null): Promise<Buffer> {
    const { der, answer } = await this.answer(caSerial, target, requestDer);
    (this.settings.metrics ?? NO_METRICS).ocspAnswered(answer);
    return der;
  }

  private async answer(caSerial: string, target: OcspTarget, requestDer: Buffer | null): Promise<{ der: Buffer; answer: OcspAnswer }> {
    let request;
    try {
      if (!requestDer) return refused('malformedRequest');
      request = parseOcspRequest(requestDer);
    } catch (e) {
      if (e instanceof X509Error) return refused('malformedRequest');
      throw e;
    }
    if (request.unknownCriticalExtension) return refused('malformedRequest');
    try {
      const now = this.now();
      // Kept answers are looked up by the request itself: it names the issuer (CertID hashes) exactly.
      const key = request.nonce ? null : `${caSerial}:${target}:${request.certIds.map((id) => id.der.toString('base64')).join(',')}`;
      if (key) {
        const kept = await this.kept(key, now.getTime());
        if (kept) return kept;
      }
      const ca = await this.store.findCaBySerial(caSerial);
      if (!ca) return refused('unauthorized');
      const facts = caFacts(ca);
      if (!request.certIds.every((id) => certIdMatchesIssuer(id, facts.subjectDer, facts.publicKeyDer))) {
        return refused('unauthorized');
      }
      // Read before the statuses: a revocation in between makes the kept answer stale, never wrong.
      const version = key ? await this.store.revocationVersion(ca.id) : 0;
      const thisUpdate = new Date(Math.floor(now.getTime() / 1000) * 1000);
      const nextUpdate = new Date(thisUpdate.getTime() + ca.ocspResponseValidity * 1000);
      const responses = [];
      for (const id of request.certIds) {
        responses.push({ certIdDer: id.der, certStatus: await this.statusOf(ca, target, id), thisUpdate, nextUpdate });
      }
      const signing = await this.signingKey(ca, now);
      const der = await buildOcspResponse(
        {
          responderCertificateDer: signing.certificateDer,
          responderPublicKeyDer: signing.publicKeyDer,
          producedAt: thisUpdate,
          responses,
          nonce: request.nonce,
          signature: { hash: defaultHashFor(signing.signer.keyType, facts.signatureHash) },
        },
        signing.signer,
      );
      const answer = answerOf(responses.map((r) => r.certStatus.status));
      if (key && responses.every((r) => r.certStatus.status !== 'unknown')) {
        if (this.answers.size >= MAX_KEPT_ANSWERS) this.answers.clear();
        this.answers.set(key, { caId: ca.id, der, answer, version, checkedAt: now.getTime(), until: now.getTime() + ANSWER_TTL_MS });
      }
      return { der, answer };
    } catch (e) {
      this.settings.logError?.('express-ca-api: OCSP response failed', e);
      // Counted as internal_error: the metrics' answer labels stay as docs/operations/metrics.md lists them.
      if (e instanceof KeyBackendUnavailableError) return { der: ocspErrorResponse('tryLater'), answer: 'internal_error' };
      return refused('internalError');
    }
  }

  private signingKey(ca: CaRecord, now: Date): Promise<OcspSigningKey> {
    return this.settings.signWith === 'ca' ? caAsResponder(this.keyBackends, ca) : this.delegates.forCa(ca, now);
  }

  private async statusOf(ca: CaRecord, target: OcspTarget, id: CertId): Promise<CertStatus> {
    const record =
      target === 'cert'
        ? await this.store.findCertificate(ca.id, id.serial)
        : await this.store.findCaBySerial(id.serial).then((child) => (child && child.parentId === ca.id ? child : null));
    if (!record) return { status: 'unknown' };
    if (record.revoked && record.revokedDate) {
      return { status: 'revoked', revocationTime: record.revokedDate, reason: record.revokedReason || 'unspecified' };
    }
    return { status: 'good' };
  }
}

/** An OCSP error response (RFC 6960 §4.2.1) and its answer for the metrics. */
function refused(status: 'malformedRequest' | 'unauthorized' | 'internalError'): { der: Buffer; answer: OcspAnswer } {
  const answer = ({ malformedRequest: 'malformed_request', unauthorized: 'unauthorized', internalError: 'internal_error' } as const)[
    status
  ];
  return { der: ocspErrorResponse(status), answer };
}

/** The answer of a request about several certificates: `revoked` if any is, else `unknown` if any is, else `good`. */
function answerOf(statuses: readonly CertStatus['status'][]): OcspAnswer {
  if (statuses.includes('revoked')) return 'revoked';
  return statuses.includes('unknown') ? 'unknown' : 'good';
}
