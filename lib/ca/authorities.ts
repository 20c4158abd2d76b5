/**
 * CA lifecycle: create (init_ca), import (import_ca), list (list_cas); editing is in ca-update.ts.
 * Reference: docs/COMPATIBILITY.md §3.7 and §4.4.
 */
import type { CaRecord, CaSignExtensions, Store } from '../ports';
import { buildCertificate } from '../x509/builder';
import { parseCertificate } from '../x509/certificate';
import { DAY_MS, formatUtc } from '../x509/datetime';
import { subjectKeyIdentifier } from '../x509/key-identifier';
import { parseName } from '../x509/name';
import { randomSerial } from '../x509/serial';
import { serialToHex } from '../x509/serial-format';
import type { EllipticCurveName, Extension, HashAlgorithmName, KeySpec, KeyType, Name } from '../x509/types';
import { caFacts, isEdwards } from './ca-facts';
import { CaError } from './errors';
import { floorToMinute } from './signing-ca';
import { caSigner, keyBackendFor, type KeyBackends } from './key-backends';
import { isUsable } from './lookup';
import { newCaRecord } from './records';
import { intermediateCaUrls, signUrlsFor } from './sign-urls';

/** Defaults of the original's settings (docs/COMPATIBILITY.md §3.7). */
export const CA_DEFAULTS = {
  keyType: 'RSA' as KeyType,
  keySize: 4096,
  minKeySize: 2048,
  curve: 'secp256r1' as EllipticCurveName,
  expiresDays: 3650,
  pathLength: 0 as number | null,
  keyBackendAlias: 'default',
  ocspKeyBackendAlias: 'default',
};

/**
 * A new CA's ACME fields (docs/COMPATIBILITY.md §2); each one omitted keeps the model default of
 * lib/ports/ca-fields.ts: disabled, registration on, profile `webserver`, contact required.
 */
export type CaAcmeSettings = Partial<Pick<CaRecord, 'acmeEnabled' | 'acmeRegistration' | 'acmeProfile' | 'acmeRequiresContact'>>;

export interface InitCaOptions {
  store: Store;
  keyBackends: KeyBackends;
  name: string;
  subject: Name;
  keyType?: KeyType;
  keySize?: number;
  curve?: EllipticCurveName;
  /** Hash of the CA certificate's signature; default SHA-512 (SHA-256 if the signing key is DSA, none for EdDSA). */
  algorithm?: HashAlgorithmName | null;
  /**
   * Validity in days. Omitted: 3650, or for an intermediate at most until its parent expires
   * (`caNotAfter`); given, an intermediate that would outlive its parent is refused.
   */
  expiresDays?: number;
  /** Basic Constraints path length; null = unlimited. Default 0 (as upstream). */
  pathLength?: number | null;
  /** Create an intermediate signed by this CA. */
  parent?: CaRecord | null;
  /** Per-use options for the parent's key backend (e.g. a password). */
  parentKeyOptions?: Record<string, unknown>;
  keyBackendAlias?: string;
  /** Backend-specific choices for the new key, e.g. `{ keyLabel }` for an HSM (`KeyBackend.createKey`). */
  keyOptions?: Record<string, unknown>;
  /**
   * Key backend of the delegated OCSP responder's keys (`ocsp_key_backend_alias`; default `default`):
   * a CA whose key is in an HSM can keep its short-lived responder keys there too, or not.
   */
  ocspKeyBackendAlias?: string;
  /** `host[:port]` for the automatic sign_* URLs (docs/COMPATIBILITY.md §3.7); null/absent = none. */
  defaultHostname?: string | null;
  urlPath?: string;
  /** Explicit sign_* values; they win over the URLs derived from the hostname. */
  sign?: Partial<CaSignExtensions>;
  apiEnabled?: boolean;
  acme?: CaAcmeSettings;
  caaIdentity?: string;
  website?: string;
  termsOfService?: string;
  now?: Date;
}

function keySpec(o: InitCaOptions): KeySpec {
  const keyType = o.keyType ?? CA_DEFAULTS.keyType;
  switch (keyType) {
    case 'RSA':
    case 'DSA': {
      const keySize = o.keySize ?? CA_DEFAULTS.keySize;
      if (!Number.isInteger(keySize) || keySize < CA_DEFAULTS.minKeySize) {
        throw new CaError('invalid', `${keySize}: Key size must be at least ${CA_DEFAULTS.minKeySize} bits.`);
      }
      if ((keySize & (keySize - 1)) !== 0) throw new CaError('invalid', `${keySize}: Key size must be a power of two.`);
      return { keyType, keySize };
    }
    case 'EC':
      return { keyType, curve: o.curve ?? CA_DEFAULTS.curve };
    case 'Ed25519':
    case 'Ed448':
      return { keyType };
    default:
      throw new CaError('invalid', `${String(keyType)}: Unknown key type.`);
  }
}

/** How many more CA levels `ca` may have below it (null = unlimited), looking up the whole chain. */
async function remainingPathLength(store: Store, ca: CaRecord): Promise<number | null> {
  let allowed: number | null = null;
  let depth = 0;
  for (let cur: CaRecord | null = ca; cur; cur = cur.parentId === null ? null : await store.getCa(cur.parentId)) {
    const own = caFacts(cur).pathLength;
    if (own !== null) allowed = allowed === null ? own - depth : Math.min(allowed, own - depth);
    depth++;
    if (depth > 32) break; // a loop in parent links would be a store bug; do not spin
  }
  return allowed;
}

function signingHash(signerKeyType: KeyType, algorithm: HashAlgorithmName | null | undefined): HashAlgorithmName | null {
  if (isEdwards(signerKeyType)) {
    if (algorithm) throw new CaError('invalid', `${signerKeyType} keys do not allow an algorithm for signing.`);
    return null;
  }
  return algorithm ?? (signerKeyType === 'DSA' ? 'SHA-256' : 'SHA-512');
}

async function assertNameFree(store: Store, name: string): Promise<void> {
  if (!name) throw new CaError('invalid', 'The name of a certificate authority must not be empty.');
  if (await store.findCaByName(name)) {
    throw new CaError('conflict', `${name}: A certificate authority with this name already exists.`);
  }
}

/**
 * When a new CA's certificate ends: `expiresDays` after `now` (floored to the minute), by default
 * `CA_DEFAULTS.expiresDays`. An intermediate cannot outlive its parent: the default then ends with
 * the parent (`cappedAtParent`) — else an intermediate made with the defaults under a root made with
 * the defaults would fail whenever it is made in a later minute than the root — while an explicit
 * `expiresDays` that outlives it is an error.
 */
export function caNotAfter(
  now: Date,
  expiresDays: number | undefined,
  parent: Pick<CaRecord, 'notAfter'> | null,
): { notAfter: Date; cappedAtParent: boolean } {
  const days = expiresDays ?? CA_DEFAULTS.expiresDays;
  const notAfter = floorToMinute(new Date(now.getTime() + days * DAY_MS));
  if (!parent || notAfter <= parent.notAfter) return { notAfter, cappedAtParent: false };
  if (expiresDays !== undefined) {
    throw new CaError('invalid', `Certificate would outlive the parent CA, which expires ${formatUtc(parent.notAfter)}.`);
  }
  return { notAfter: parent.notAfter, cappedAtParent: true };
}

/** init_ca: a new root or intermediate CA with a fresh key. */
export async function initCa(o: InitCaOptions): Promise<CaRecord> {
  const { store } = o;
  const now = o.now ?? new Date();
  const subject = parseName(o.subject);
  await assertNameFree(store, o.name);
  const spec = keySpec(o);
  if (o.expiresDays !== undefined && !(o.expiresDays > 0)) {
    throw new CaError('invalid', `${o.expiresDays}: Expires must be a positive number of days.`);
  }
  const pathLength = o.pathLength === undefined ? CA_DEFAULTS.pathLength : o.pathLength;
  if (pathLength !== null && !(Number.isInteger(pathLength) && pathLength >= 0)) {
    throw new CaError('invalid', `${pathLength}: Path length must be a non-negative integer.`);
  }
  const notBefore = floorToMinute(now);
  const parent = o.parent ?? null;
  if (parent) {
    if (!isUsable(parent, now)) throw new CaError('conflict', `${parent.name}: Parent CA is not usable (disabled, revoked or expired).`);
    const remaining = await remainingPathLength(store, parent);
    if (remaining !== null && remaining <= 0) {
      throw new CaError('conflict', 'Parent CA cannot create intermediate CA due to path length restrictions.');
    }
  }
  const { notAfter } = caNotAfter(now, o.expiresDays, parent);

  const alias = o.keyBackendAlias ?? CA_DEFAULTS.keyBackendAlias;
  const backend = keyBackendFor(o.keyBackends, alias);
  const ocspAlias = ocspKeyBackendAlias(o);
  // Resolve the parent's signer before creating a key, so a locked parent key fails early.
  const parentSigner = parent ? await caSigner(o.keyBackends, parent, o.parentKeyOptions) : null;
  const stored = await backend.createKey(spec, o.keyOptions);
  const signer = parentSigner ?? (await backend.getSigner(stored.options));
  const hash = signingHash(signer.keyType, o.algorithm);

  const serialNumber = randomSerial();
  const serial = serialToHex(serialNumber);
  const ownKeyId = subjectKeyIdentifier(stored.publicKeyDer).toString('base64');
  const issuerKeyId = parent ? caFacts(parent).keyIdentifier : ownKeyId;
  const urls = o.defaultHostname ? { hostname: o.defaultHostname, urlPath: o.urlPath } : null;

  const extensions: Extension[] = [
    { type: 'key_usage', critical: true, value: ['crl_sign', 'key_cert_sign'] },
    ...(parent && urls ? intermediateCaUrls(urls, parent.serial) : []),
    { type: 'basic_constraints', critical: true, value: { ca: true, path_length: pathLength } },
    { type: 'subject_key_identifier', critical: false, value: ownKeyId },
    {
      type: 'authority_key_identifier',
      critical: false,
      value: { key_identifier: issuerKeyId, authority_cert_issuer: null, authority_cert_serial_number: null },
    },
  ];
  const der = await buildCertificate(
    {
      issuer: parent ? caFacts(parent).subjectDer : subject,
      subject,
      serialNumber,
      notBefore,
      notAfter,
      publicKeyDer: stored.publicKeyDer,
      extensions,
      signature: { hash },
    },
    signer,
  );
  const parsed = parseCertificate(der);
  const sign = { ...(urls ? signUrlsFor(urls, serial) : {}), ...(o.sign ?? {}) };
  return store.insertCa(
    newCaRecord(parsed, {
      name: o.name,
      parentId: parent ? parent.id : null,
      keyBackendAlias: alias,
      keyBackendOptions: stored.options,
      ocspKeyBackendAlias: ocspAlias,
      sign,
      apiEnabled: o.apiEnabled,
      ...o.acme,
      caaIdentity: o.caaIdentity,
      website: o.website,
      termsOfService: o.termsOfService,
    }),
  );
}

export interface ImportCaOptions {
  store: Store;
  keyBackends: KeyBackends;
  name: string;
  /** The CA certificate, PEM or DER. */
  certificate: string | Buffer;
  /** The private key (PEM or DER, optionally encrypted); null = import without a key (cannot sign). */
  key: string | Buffer | null;
  keyPassword?: string;
  parent?: CaRecord | null;
  keyBackendAlias?: string;
  /** Backend-specific choices for the imported key, e.g. `{ keyLabel }` for an HSM (`KeyBackend.importKey`). */
  keyOptions?: Record<string, unknown>;
  /** Key backend of the delegated OCSP responder's keys (see `InitCaOptions.ocspKeyBackendAlias`). */
  ocspKeyBackendAlias?: string;
  sign?: Partial<CaSignExtensions>;
  apiEnabled?: boolean;
  acme?: CaAcmeSettings;
  caaIdentity?: string;
  website?: string;
  termsOfService?: string;
}

/** The OCSP key backend asked for, checked to be configured now rather than at the first OCSP request. */
function ocspKeyBackendAlias(o: { keyBackends: KeyBackends; ocspKeyBackendAlias?: string }): string {
  const alias = o.ocspKeyBackendAlias ?? CA_DEFAULTS.ocspKeyBackendAlias;
  keyBackendFor(o.keyBackends, alias);
  return alias;
}

/** import_ca: an existing CA certificate (and normally its key). No automatic sign_* URLs. */
export async function importCa(o: ImportCaOptions): Promise<CaRecord> {
  const { store } = o;
  await assertNameFree(store, o.name);
  const parsed = parseCertificate(o.certificate);
  if (await store.findCaBySerial(parsed.serial)) {
    throw new CaError('conflict', `${parsed.serial}: A certificate authority with this serial already exists.`);
  }
  const alias = o.keyBackendAlias ?? CA_DEFAULTS.keyBackendAlias;
  // Without a key the CA signs nothing, OCSP responders included: no backend needed for them yet.
  const ocspAlias = o.key !== null ? ocspKeyBackendAlias(o) : (o.ocspKeyBackendAlias ?? CA_DEFAULTS.ocspKeyBackendAlias);
  let keyOptions: Record<string, unknown> | null = null;
  if (o.key !== null) {
    const stored = await keyBackendFor(o.keyBackends, alias).importKey(o.key, o.keyPassword, o.keyOptions);
    if (!stored.publicKeyDer.equals(parsed.publicKey.der)) {
      throw new CaError('key', 'The private key does not match the certificate.');
    }
    keyOptions = stored.options;
  }
  return store.insertCa(
    newCaRecord(parsed, {
      name: o.name,
      parentId: o.parent ? o.parent.id : null,
      keyBackendAlias: alias,
      keyBackendOptions: keyOptions,
      ocspKeyBackendAlias: ocspAlias,
      sign: o.sign,
      apiEnabled: o.apiEnabled,
      ...o.acme,
      caaIdentity: o.caaIdentity,
      website: o.website,
      termsOfService: o.termsOfService,
    }),
  );
}

/** list_cas order: all CAs (enabled or not), by expiry, then name. */
export async function listCas(store: Store): Promise<CaRecord[]> {
  const all = await store.listCas();
  return all.sort((a, b) => a.notAfter.getTime() - b.notAfter.getTime() || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface CaTreeNode {
  ca: CaRecord;
  children: CaTreeNode[];
}

/** Roots (and CAs whose parent is gone) with their children, each level in list_cas order. */
export async function caTree(store: Store): Promise<CaTreeNode[]> {
  const all = await listCas(store);
  const nodes = new Map(all.map((ca) => [ca.id, { ca, children: [] as CaTreeNode[] }]));
  const roots: CaTreeNode[] = [];
  for (const ca of all) {
    const node = nodes.get(ca.id)!;
    const parent = ca.parentId !== null && ca.parentId !== ca.id ? nodes.get(ca.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}
