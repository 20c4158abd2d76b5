/**
 * What the ACME handlers work with, built once per mount (lib/acme/mount.ts): the stores (the ACME
 * store of lib/ports/acme-store.ts, the nonces, the certificates), the CA cache, the issuing and
 * revocation services of lib/ca, and the runner that validates challenges and issues certificates.
 */
import type { AcmeAccountCache } from './cache/account-cache';
import type { AcmePolicyCache } from './cache/policy-cache';
import type { CaCache } from '../cache/ca-cache';
import type { KeyBackends } from '../ca/key-backends';
import type { Profiles } from '../ca/profiles';
import type { AcmeNonceStore, AcmeStore, SecretBox, SignatureVerifier, Store } from '../ports';
import type { ResolvedAcmeOptions } from './options';
import type { AcmeRunner } from './runner';

export interface AcmeServices {
  store: Store;
  acme: AcmeStore;
  nonces: AcmeNonceStore;
  cas: CaCache;
  keyBackends: KeyBackends;
  profiles: Profiles;
  verifier: SignatureVerifier | null;
  /** Opens the sealed MAC keys of external account bindings; null: none can be checked. */
  secrets: SecretBox | null;
  options: ResolvedAcmeOptions;
  /** Each CA's ACME policy, read through a short-lived cache (cache/policy-cache.ts). */
  policies: AcmePolicyCache;
  /** The accounts that `kid`s name, read through a short-lived cache (cache/account-cache.ts). */
  accounts: AcmeAccountCache;
  runner: AcmeRunner;
}

/** How long a nonce stays good (RFC 8555 §6.5 leaves it to the server): long enough for a slow client's next request. */
export const NONCE_TTL_MS = 60 * 60 * 1000;
