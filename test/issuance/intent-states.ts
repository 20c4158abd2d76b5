/**
 * Issuance intents of each state, made by the real authority (lib/ca/issuance): `issued` by a normal
 * issue, `failed` by a key that cannot sign (the intent records why), `pending` recorded and never
 * signed (a process that died before its signature). For the listings' tests (store, admin page, CLI).
 */
import { randomBytes } from 'crypto';
import { issue, keepAlone } from '../../lib/ca/issuance/issue';
import { prepareIssuance } from '../../lib/ca/issuance/prepare';
import { parseCsr } from '../../lib/x509/csr';
import { signCertificate, type Signing } from '../../lib/ca/issuance/sign';
import { policyContextOf } from '../../lib/ca/policy/context';
import { resolveProfiles } from '../../lib/ca/profiles';
import {
  isIntentTaken,
  type Actor,
  type CaRecord,
  type CertificateRecord,
  type IssuanceIntentRecord,
  type KeyBackend,
  type Store,
} from '../../lib/ports';
import { opensslCsr } from '../api/fixture';

const profiles = resolveProfiles({});

export interface IntentsOfEachState {
  /** Issued over `rest` by `requester`: its certificate. */
  issued: CertificateRecord;
  /** Failed over `est`: the signature was refused ("Not signed: … the token is unplugged"). */
  failed: IssuanceIntentRecord;
  /** Pending over `acme`: recorded, never signed. */
  pending: IssuanceIntentRecord;
}

/** `backend` as it is, except that its signers refuse (a token unplugged). */
function unplugged(backend: KeyBackend): KeyBackend {
  return {
    alias: backend.alias,
    createKey: (spec, o) => backend.createKey(spec, o),
    importKey: (key, password, o) => backend.importKey(key, password, o),
    getSigner: async (options, use) => {
      const signer = await backend.getSigner(options, use);
      return {
        keyType: signer.keyType,
        publicKeyDer: signer.publicKeyDer,
        sign: () => Promise.reject(new Error('the token is unplugged')),
      };
    },
  };
}

/** One intent of each state on `ca`, in this order: issued, failed, pending (ids rising). */
export async function intentsOfEachState(store: Store, ca: CaRecord, backend: KeyBackend, requester: Actor): Promise<IntentsOfEachState> {
  const request = prepareIssuance(
    { csr: parseCsr(opensslCsr('EC').csr), subject: [{ oid: 'CN', value: `leaf.${ca.name}.example` }], extensions: [], notAfter: null },
    { ca, policy: policyContextOf(ca, [ca]), profiles },
  );
  const signing = (b: KeyBackend): Signing => ({ keyBackends: { [ca.keyBackendAlias]: b }, profiles, intents: store });
  const issued = await issue(signing(backend), ca, request, { requester, door: 'rest' }, keepAlone(store));
  await signCertificate(signing(unplugged(backend)), ca, request, { requester: null, door: 'est' }).then(
    () => Promise.reject(new Error('an unplugged token signed')),
    () => undefined,
  );
  const [failed] = await store.listIntents({ caId: ca.id, limit: 1 });
  if (failed.failed === null) throw new Error('the refused signature left no failed intent');
  const pending = await store.recordIntent({
    caId: ca.id,
    serial: `7F${randomBytes(15).toString('hex').toUpperCase()}`,
    door: 'acme',
    requester,
    answers: null,
    tbs: Buffer.from([0x30, 0]),
  });
  if (isIntentTaken(pending)) throw new Error('nothing else answers a null');
  return { issued, failed, pending };
}
