/**
 * The CA's delegated OCSP responder certificate (RFC 6960 §4.2.2.2; lib/ca/ocsp-delegate.ts decides
 * when one is needed): a delegate (delegate.ts) with the `ocsp` profile, for a key the CA's OCSP key
 * backend has just made, requested by the library itself (`LIBRARY_ACTOR`: nobody asked at that
 * moment). The certificate and the CA's pointer to it are one transaction.
 */
import type { Actor, CaRecord, RevocationStore, Store } from '../../ports';
import { issueDelegate } from './delegate';
import type { Signing } from './sign';

/** The responder key the OCSP key backend made: its public key and how the backend finds it again. */
export interface ResponderKey {
  publicKeyDer: Buffer;
  keyBackendOptions: Record<string, unknown>;
}

/** A responder certificate issued and stored, with the DER and validity the responder serves. */
export interface IssuedResponder {
  der: Buffer;
  notAfter: Date;
}

export async function issueResponder(
  signing: Signing,
  store: Store & RevocationStore,
  ca: CaRecord,
  key: ResponderKey,
  validityMs: number,
  requester: Actor,
  now: Date,
): Promise<IssuedResponder> {
  const made = {
    subject: [{ oid: '2.5.4.3', value: `${ca.name.slice(0, 40)} OCSP responder` }],
    publicKeyDer: key.publicKeyDer,
    profile: 'ocsp',
    validityMs,
  };
  const issued = await issueDelegate(signing, store, ca, made, requester, 'ocsp', now, (tx, certificate) =>
    asRevocationStore(tx).setOcspResponder(ca.id, { keyBackendOptions: key.keyBackendOptions, certificateSerial: certificate.serial }),
  );
  return { der: issued.der, notAfter: issued.notAfter };
}

/** A transaction of a store that keeps responders keeps them too (the knex store's does). */
function asRevocationStore(tx: Store): Store & RevocationStore {
  if (typeof (tx as Partial<RevocationStore>).setOcspResponder !== 'function')
    throw new TypeError('the store keeps OCSP responders but its transactions do not (RevocationStore)');
  return tx as Store & RevocationStore;
}
