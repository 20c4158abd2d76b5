/**
 * The store's ACME capability (`AcmeStoreProvider`, lib/ports/acme-store.ts) for the commands that
 * need it (`ca-admin create_acme_eab_key`, `list_acme_accounts`, the policy options of
 * init_ca/edit_ca): a store without one is an error that says so, not a crash on `store.acme`.
 */
import { CaError } from '../ca/errors';
import { hasAcmeStore, type AcmeStore, type Store } from '../ports';

/** The store's ACME capability, or an error saying the setting needs one. */
export function acmeStoreOf(store: Store): AcmeStore {
  if (!hasAcmeStore(store)) throw new CaError('invalid', 'This store keeps no ACME data (it has no ACME capability).');
  return store.acme;
}
