/**
 * The SCEP registration authority of a CA (RFC 8894 §2.1.2; docs/guides/scep.md): an RSA key beside the CA's
 * own key — in its key backend when that backend can decrypt (the default one; an HSM's token, where
 * the key is made non-extractable and decrypts in the token), else in its OCSP key backend (the backend
 * of its online keys) — with a certificate the CA issues to it — key usage
 * digitalSignature and keyEncipherment, critical, and no extended key usage, which is what SCEP
 * clients look for in the RA certificate: they encrypt their requests to it, and verify the answers
 * it signs. The CA key signs only certificates and CRLs, whatever its type (an EC CA enrols through
 * its RSA RA), and never decrypts. Made on first use, renewed before it expires (lib/ca/delegate-cache.ts).
 */
import type { CaRecord, DelegateKeyStore, KeyBackend, KeyDecryption, RawRsaDecrypter, Store } from '../ports';
import { hasKeyDecryption } from '../ports';
import { DAY_MS } from '../x509/datetime';
import type { Signer } from '../x509/signer';
import type { Extension } from '../x509/types';
import { LIBRARY_ACTOR } from '../ca/actors';
import { DelegateCache } from '../ca/delegate-cache';
import { CaError } from '../ca/errors';
import { issueDelegate } from '../ca/issuance/delegate';
import { keyBackendFor, openSigner, type KeyBackends } from '../ca/key-backends';
import type { Profiles } from '../ca/profiles';

/** An RA key ready to use: it decrypts requests and signs answers; its certificate vouches for it. */
export interface ScepRaKey {
  certificateDer: Buffer;
  signer: Signer;
  decrypter: RawRsaDecrypter;
  notAfter: Date;
}

export interface ScepRaSettings {
  /** Validity of a new RA certificate (within the CA's own). Default 365 days. */
  validityMs?: number;
  /** Make a new RA this long before the current one expires (unless it ends with the CA): clients cache it. Default 30 days. */
  renewBeforeMs?: number;
}

/** What the name `scep_ra` stands for in the certificate's record; no profile of that name is needed. */
export const SCEP_RA_PROFILE = 'scep_ra';
/** RSA-2048: what every SCEP client can encrypt to (RFC 8894 §3.5.2 names no other key transport). */
const RA_KEY = { keyType: 'RSA', keySize: 2048 } as const;
/** The name the RA key's certificate and (in an HSM) its CKA_LABEL carry. */
const raName = (ca: CaRecord) => `${ca.name.slice(0, 40)} SCEP RA`;
const RA_KEY_USAGE: Extension = { type: 'key_usage', critical: true, value: ['digital_signature', 'key_encipherment'] };

export class ScepRas {
  private readonly delegates: DelegateCache<ScepRaKey>;
  private readonly validityMs: number;

  constructor(
    private readonly store: Store & DelegateKeyStore,
    private readonly keyBackends: KeyBackends,
    private readonly profiles: Profiles,
    settings: ScepRaSettings = {},
  ) {
    this.validityMs = settings.validityMs ?? 365 * DAY_MS;
    this.delegates = new DelegateCache<ScepRaKey>(
      { load: (ca, now) => this.load(ca, now), issue: (ca, now) => this.issue(ca, now), validityMs: () => this.validityMs },
      settings.renewBeforeMs ?? 30 * DAY_MS,
    );
  }

  /** The RA of `ca`, made now if it has none, or it expires soon and a new one would end later (delegate-cache.ts). */
  forCa(ca: CaRecord, now = new Date()): Promise<ScepRaKey> {
    return this.delegates.forCa(ca, now);
  }

  /** The key backend `alias`, which must decrypt: the RA key opens SCEP requests (RFC 8894 §3.2.2). */
  private decryptingBackend(alias: string): KeyBackend & KeyDecryption {
    const backend = keyBackendFor(this.keyBackends, alias);
    if (!hasKeyDecryption(backend)) {
      throw new CaError('invalid', `The key backend ${alias} cannot decrypt, so it cannot hold a SCEP RA key.`);
    }
    return backend;
  }

  private async open(alias: string, options: Record<string, unknown>): Promise<{ signer: Signer; decrypter: RawRsaDecrypter }> {
    const backend = this.decryptingBackend(alias);
    return { signer: await openSigner(backend, options), decrypter: await backend.getDecrypter(options) };
  }

  private async load(ca: CaRecord, now: Date): Promise<ScepRaKey | null> {
    const record = await this.store.getDelegateKey(ca.id, 'scep_ra');
    if (!record) return null;
    const cert = await this.store.findCertificate(ca.id, record.certificateSerial);
    if (!cert || cert.revoked || cert.notBefore > now || cert.notAfter <= now) return null;
    return { ...(await this.open(record.keyBackendAlias, record.keyBackendOptions)), certificateDer: cert.der, notAfter: cert.notAfter };
  }

  /**
   * Where a new RA key is made: the CA's own key backend when it can decrypt — so that an HSM-held CA's
   * RA key is in the same token, not encrypted in the database — else its OCSP key backend. A key made
   * before stays where its record says (`load`) until it is renewed.
   */
  private newKeyAlias(ca: CaRecord): string {
    return hasKeyDecryption(keyBackendFor(this.keyBackends, ca.keyBackendAlias)) ? ca.keyBackendAlias : ca.ocspKeyBackendAlias;
  }

  private async issue(ca: CaRecord, now: Date): Promise<ScepRaKey> {
    const alias = this.newKeyAlias(ca);
    const backend = this.decryptingBackend(alias);
    // `decrypt`: a backend that restricts what keys do (PKCS#11) lets this one decrypt too; `keyLabel`: its name there.
    const stored = await backend.createKey(RA_KEY, { keyLabel: raName(ca), decrypt: true });
    const made = {
      subject: [{ oid: '2.5.4.3', value: raName(ca) }],
      publicKeyDer: stored.publicKeyDer,
      profile: SCEP_RA_PROFILE,
      extensions: [RA_KEY_USAGE],
      validityMs: this.validityMs,
    };
    const signing = { keyBackends: this.keyBackends, profiles: this.profiles, intents: this.store };
    const issued = await issueDelegate(signing, this.store, ca, made, LIBRARY_ACTOR, 'scep-ra', now, (tx, certificate) =>
      asDelegateKeyStore(tx).setDelegateKey(ca.id, 'scep_ra', {
        keyBackendAlias: alias,
        keyBackendOptions: stored.options,
        certificateSerial: certificate.serial,
      }),
    );
    return { ...(await this.open(alias, stored.options)), certificateDer: issued.der, notAfter: issued.notAfter };
  }
}

/** A transaction of a store that keeps delegate keys keeps them too (the knex store's does). */
function asDelegateKeyStore(tx: Store): Store & DelegateKeyStore {
  if (typeof (tx as Partial<DelegateKeyStore>).setDelegateKey !== 'function')
    throw new TypeError('the store keeps delegate keys but its transactions do not (DelegateKeyStore)');
  return tx as Store & DelegateKeyStore;
}
