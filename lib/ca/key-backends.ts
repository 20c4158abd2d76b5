/**
 * Key backends by alias, and the signer of a CA.
 *
 * A host may hand its backends over as a list, a map or a plain object; the rules only ever need
 * "the backend called X", so they accept all three.
 */
import { KeyBackendUnavailableError, type CaRecord, type KeyBackend, type SignRequest } from '../ports';
import type { Signer } from '../x509/signer';
import { caFacts } from './ca-facts';
import { CaError } from './errors';

export type KeyBackends = readonly KeyBackend[] | ReadonlyMap<string, KeyBackend> | Readonly<Record<string, KeyBackend>>;

export function keyBackendFor(backends: KeyBackends, alias: string): KeyBackend {
  let found: KeyBackend | undefined;
  if (Array.isArray(backends)) found = (backends as readonly KeyBackend[]).find((b) => b.alias === alias);
  else if (backends instanceof Map) found = backends.get(alias);
  else if (Object.prototype.hasOwnProperty.call(backends, alias)) {
    found = (backends as Readonly<Record<string, KeyBackend>>)[alias];
  }
  if (!found) throw new CaError('key', `${alias}: Key backend is not configured.`);
  return found;
}

/**
 * The signer for a CA's private key. A CA imported without its key (`import_ca --no-key`) has no
 * `keyBackendOptions` and cannot sign; say so instead of failing somewhere inside a backend.
 */
export async function caSigner(
  backends: KeyBackends,
  ca: Pick<CaRecord, 'name' | 'keyBackendAlias' | 'keyBackendOptions' | 'der' | 'fingerprints' | 'certificate'>,
  useOptions?: Record<string, unknown>,
): Promise<Signer> {
  if (ca.keyBackendOptions === null) {
    throw new CaError(
      'key',
      `${ca.name}: The private key of this certificate authority is not available (it was imported without its key), so it cannot sign.`,
    );
  }
  const signer = await openSigner(keyBackendFor(backends, ca.keyBackendAlias), ca.keyBackendOptions, useOptions);
  // Whatever the CA signs (certificates, responder certificates, CRLs, OCSP answers) must verify
  // with its certificate's key: a backend handing out another key is refused before it signs.
  if (!signer.publicKeyDer.equals(caFacts(ca).publicKeyDer)) {
    throw new CaError('key', `${ca.name}: The private key does not match the certificate authority's certificate.`);
  }
  return signer;
}

/**
 * `backend.getSigner`, with a key the backend cannot open (its key-encryption key is not the one the
 * key was stored under, the stored key is damaged, the HSM has no such key) reported as
 * `KeyBackendUnavailableError`: the request was fine, the key is not usable now — a request waiting
 * on it is answered 503 with `Retry-After` and an order fails with the backend's message, as when an
 * HSM is unreachable (docs/operations/hostile-clients-and-outages.md "Outages"), never a 500. The message is the backend's own (it never
 * carries key material); `CaError`s (the rules' answers to the request) pass unchanged.
 */
export async function openSigner(
  backend: KeyBackend,
  options: Record<string, unknown>,
  useOptions?: Record<string, unknown>,
): Promise<Signer> {
  try {
    return await backend.getSigner(options, useOptions);
  } catch (e) {
    if (e instanceof KeyBackendUnavailableError || e instanceof CaError || !(e instanceof Error)) throw e;
    throw new KeyBackendUnavailableError(e.message, { cause: e });
  }
}

/**
 * The sign request as its order row may keep it: the per-use key options reduced to what the CA's
 * backend allows to be stored (`KeyBackend.storableUseOptions`; nothing by default), so that a secret
 * given with a request never reaches the database.
 */
export function storableRequest(backends: KeyBackends, ca: Pick<CaRecord, 'keyBackendAlias'>, request: SignRequest): SignRequest {
  const given = request.keyBackendOptions;
  if (Object.keys(given).length === 0) return request; // nothing given: nothing to keep back, no copy
  let backend: KeyBackend | null;
  try {
    backend = keyBackendFor(backends, ca.keyBackendAlias);
  } catch {
    backend = null; // no such backend here: keep nothing; the runner reports the missing backend
  }
  const kept = backend?.storableUseOptions ? backend.storableUseOptions(given) : {};
  return kept === given ? request : { ...request, keyBackendOptions: kept };
}
