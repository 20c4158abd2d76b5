/**
 * The OCSP responder (RFC 6960, the RFC 5019 profile): request bytes in, response bytes out, never an
 * exception — every failure is an OCSP status, because OCSP clients understand nothing else.
 *
 * - Unparsable request, or a critical extension we do not know → `malformedRequest`.
 * - A CA we do not have, or a CertID naming another issuer → `unauthorized` (§2.3: not authoritative).
 * - Per certificate: `good`, `revoked` (time = the stored revocation date, reason), or — unlike the
 *   original, which answered errors — `unknown` for a serial this CA never issued (§2.2).
 * - Anything failing inside (store down, key unusable) → `internalError`; the responder keeps answering.
 *
 * Statuses are read from the store on every request (an indexed lookup), so a revocation made through
 * any instance shows in the very next answer. Nonces are echoed (RFC 8954).
 */
import type { CaRecord, RevocationStore, Store } from '../ports';
import { X509Error } from '../x509/errors';
import { certIdMatchesIssuer } from '../x509/revocation/cert-id';
import { parseOcspRequest, type CertId } from '../x509/revocation/ocsp-request';
import { buildOcspResponse, ocspErrorResponse, type CertStatus } from '../x509/revocation/ocsp-response';
import { caFacts, defaultHashFor } from './ca-facts';
import type { KeyBackends } from './key-backends';
import { caAsResponder, OcspDelegates, type OcspSigningKey } from './ocsp-delegate';
import type { Profiles } from './profiles';

/** `cert`: end-entity certificates of the CA; `ca`: its child CAs (the `ocsp/{S}/ca/` URL). */
export type OcspTarget = 'cert' | 'ca';

export interface OcspSettings {
  /** Who signs: a delegated responder certificate (default) or the CA key itself. */
  signWith?: 'delegate' | 'ca';
  now?: () => Date;
  /** Where unexpected failures are reported (never with key material). */
  logError?: (message: string, error: unknown) => void;
}

export class OcspResponder {
  readonly delegates: OcspDelegates;
  private readonly now: () => Date;

  constructor(
    private readonly store: Store & RevocationStore,
    private readonly keyBackends: KeyBackends,
    profiles: Profiles,
    private readonly settings: OcspSettings = {},
  ) {
    this.delegates = new OcspDelegates(store, keyBackends, profiles);
    this.now = settings.now ?? (() => new Date());
  }

  /** The DER OCSPResponse for a request to the responder of CA `caSerial`. */
  async respond(caSerial: string, target: OcspTarget, requestDer: Buffer | null): Promise<Buffer> {
    let request;
    try {
      if (!requestDer) return ocspErrorResponse('malformedRequest');
      request = parseOcspRequest(requestDer);
    } catch (e) {
      if (e instanceof X509Error) return ocspErrorResponse('malformedRequest');
      throw e;
    }
    if (request.unknownCriticalExtension) return ocspErrorResponse('malformedRequest');
    try {
      const ca = await this.store.findCaBySerial(caSerial);
      if (!ca) return ocspErrorResponse('unauthorized');
      const facts = caFacts(ca);
      if (!request.certIds.every((id) => certIdMatchesIssuer(id, facts.subjectDer, facts.publicKeyDer))) {
        return ocspErrorResponse('unauthorized');
      }
      const now = this.now();
      const thisUpdate = new Date(Math.floor(now.getTime() / 1000) * 1000);
      const nextUpdate = new Date(thisUpdate.getTime() + ca.ocspResponseValidity * 1000);
      const responses = [];
      for (const id of request.certIds) {
        responses.push({ certIdDer: id.der, certStatus: await this.statusOf(ca, target, id), thisUpdate, nextUpdate });
      }
      const key = await this.signingKey(ca, now);
      return await buildOcspResponse(
        {
          responderCertificateDer: key.certificateDer,
          responderPublicKeyDer: key.publicKeyDer,
          producedAt: thisUpdate,
          responses,
          nonce: request.nonce,
          signature: { hash: defaultHashFor(key.signer.keyType, facts.signatureHash) },
        },
        key.signer,
      );
    } catch (e) {
      this.settings.logError?.('express-ca-api: OCSP response failed', e);
      return ocspErrorResponse('internalError');
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
