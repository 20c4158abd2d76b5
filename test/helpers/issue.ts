/** Issuing in tests through the one issuance service (lib/ca/issuance/issue.ts), the certificate kept alone. */
import { issue } from '../../lib/ca/issuance/issue';
import type { KeyBackends } from '../../lib/ca/key-backends';
import type { Profiles } from '../../lib/ca/profiles';
import type { CaRecord, CertificateRecord, SignRequest, Store } from '../../lib/ports';

/** The service's `issue`, keeping the certificate alone in `store` (a transaction's store, or the store). */
export function issueFromRequest(o: {
  store: Pick<Store, 'insertCertificate' | 'recordIntent' | 'failIntent'>;
  keyBackends: KeyBackends;
  ca: CaRecord;
  request: SignRequest;
  profiles: Profiles;
  now?: Date;
}): Promise<CertificateRecord> {
  const signing = { keyBackends: o.keyBackends, profiles: o.profiles, intents: o.store };
  return issue(signing, o.ca, o.request, { requester: null, door: 'library' }, (c) => o.store.insertCertificate(c), o.now);
}
