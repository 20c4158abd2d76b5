/** Issuing in tests through the one issuance service (lib/ca/issuance/issue.ts), the certificate kept alone. */
import { issue } from '../../lib/ca/issuance/issue';
import type { KeyBackends } from '../../lib/ca/key-backends';
import type { Profiles } from '../../lib/ca/profiles';
import type { CaRecord, CertificateRecord, SignRequest, Store } from '../../lib/ports';

/** The service's `issue`, keeping the certificate alone in `store` (a transaction's store, or the store). */
export function issueFromRequest(o: {
  store: Pick<Store, 'insertCertificate'>;
  keyBackends: KeyBackends;
  ca: CaRecord;
  request: SignRequest;
  profiles: Profiles;
  now?: Date;
}): Promise<CertificateRecord> {
  return issue({ keyBackends: o.keyBackends, profiles: o.profiles }, o.ca, o.request, null, (c) => o.store.insertCertificate(c), o.now);
}
