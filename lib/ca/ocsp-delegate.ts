/**
 * The delegated OCSP responder of a CA (RFC 6960 §4.2.2.2): a certificate the CA issues to a key in
 * the CA's OCSP key backend (`ocsp_key_backend_alias`, README "Keys in an HSM"), with the `ocsp`
 * profile (extended key usage OCSPSigning, OCSP No Check), made automatically on first use and
 * renewed before it expires (delegate-cache.ts). The CA key itself then signs nothing but
 * certificates and CRLs, and a leaked responder key expires within days.
 */
import type { CaRecord, Store, RevocationStore } from '../ports';
import { parseCertificate } from '../x509/certificate';
import { DAY_MS } from '../x509/datetime';
import type { Signer } from '../x509/signer';
import type { KeySpec } from '../x509/types';
import { LIBRARY_ACTOR } from './actors';
import { caFacts } from './ca-facts';
import { DelegateCache } from './delegate-cache';
import { issueResponder } from './issuance/responder';
import { caSigner, keyBackendFor, openSigner, type KeyBackends } from './key-backends';
import type { Profiles } from './profiles';

export interface OcspSigningKey {
  signer: Signer;
  /** The certificate that vouches for `signer` (the responder's, or the CA's own). */
  certificateDer: Buffer;
  publicKeyDer: Buffer;
  notAfter: Date;
}

export interface DelegateSettings {
  /** Renew a responder certificate this long before it expires (unless it ends with the CA). Default 1 day. */
  renewBeforeMs?: number;
}

/** A key of the same kind as the CA's (RSA size, EC curve), as upstream makes it. */
function keySpecLike(ca: CaRecord): KeySpec {
  const key = parseCertificate(ca.der).publicKey;
  switch (key.keyType) {
    case 'RSA':
    case 'DSA':
      return { keyType: key.keyType, keySize: key.keySize };
    case 'EC':
      return { keyType: 'EC', curve: key.curve ?? 'secp256r1' };
    default:
      return { keyType: key.keyType };
  }
}

/** How long a new responder certificate of `ca` is asked to live (within the CA's own validity). */
const responderValidityMs = (ca: CaRecord): number => ca.ocspResponderKeyValidity * DAY_MS;

/** The CA's own key as the responder (RFC 6960 §4.2.2.2: the CA may sign its responses itself). */
export async function caAsResponder(keyBackends: KeyBackends, ca: CaRecord): Promise<OcspSigningKey> {
  return { signer: await caSigner(keyBackends, ca), certificateDer: ca.der, publicKeyDer: caFacts(ca).publicKeyDer, notAfter: ca.notAfter };
}

/** Issue a new responder certificate for `ca` (the issuing service, lib/ca/issuance/responder.ts). */
async function newResponder(
  store: Store & RevocationStore,
  keyBackends: KeyBackends,
  profiles: Profiles,
  ca: CaRecord,
  now: Date,
): Promise<OcspSigningKey> {
  const backend = keyBackendFor(keyBackends, ca.ocspKeyBackendAlias);
  const stored = await backend.createKey(keySpecLike(ca));
  const key = { publicKeyDer: stored.publicKeyDer, keyBackendOptions: stored.options };
  const issued = await issueResponder(
    { keyBackends, profiles, intents: store },
    store,
    ca,
    key,
    responderValidityMs(ca),
    LIBRARY_ACTOR,
    now,
  );
  return {
    signer: await openSigner(backend, stored.options),
    certificateDer: issued.der,
    publicKeyDer: stored.publicKeyDer,
    notAfter: issued.notAfter,
  };
}

/** Responder keys per CA, made or loaded once, renewed before they expire (delegate-cache.ts). */
export class OcspDelegates {
  private readonly delegates: DelegateCache<OcspSigningKey>;

  constructor(
    private readonly store: Store & RevocationStore,
    private readonly keyBackends: KeyBackends,
    private readonly profiles: Profiles,
    settings: DelegateSettings = {},
  ) {
    this.delegates = new DelegateCache(
      {
        load: (ca, now) => this.load(ca, now),
        issue: (ca, now) => newResponder(store, keyBackends, profiles, ca, now),
        validityMs: responderValidityMs,
      },
      settings.renewBeforeMs ?? DAY_MS,
    );
  }

  /** The responder key of `ca`, renewed when it expires within `renewBeforeMs` and a new one would end later. */
  forCa(ca: CaRecord, now: Date): Promise<OcspSigningKey> {
    return this.delegates.forCa(ca, now);
  }

  /** Make a new responder now (`ca-admin generate_ocsp_keys --force`), whatever exists. */
  renew(ca: CaRecord, now: Date): Promise<OcspSigningKey> {
    return this.delegates.renew(ca, now);
  }

  private async load(ca: CaRecord, now: Date): Promise<OcspSigningKey | null> {
    const record = await this.store.getOcspResponder(ca.id);
    if (!record) return null;
    const cert = await this.store.findCertificate(ca.id, record.certificateSerial);
    if (!cert || cert.revoked || cert.notBefore > now || cert.notAfter <= now) return null;
    const signer = await openSigner(keyBackendFor(this.keyBackends, ca.ocspKeyBackendAlias), record.keyBackendOptions);
    return { signer, certificateDer: cert.der, publicKeyDer: signer.publicKeyDer, notAfter: cert.notAfter };
  }
}
