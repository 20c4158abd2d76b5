/**
 * Rotating the key-encryption key (KEK) of stored CA keys (`ca-admin rotate_kek`, docs/operations/kek-rotation.md):
 * an optional capability of key backends (re-encrypt one stored key; the PKCS#11 backend, whose keys
 * stay in the HSM, has none) and a part of `Store` (rewrite every stored key in one transaction). lib/ports/index.ts re-exports both.
 */

/** Optional key-backend capability: backends that keep keys encrypted under a KEK can move them to a new one. */
export interface KekRotatingKeyBackend {
  /**
   * A rotation from this backend's current KEK to `newKek` (in the form the backend's configuration
   * takes, e.g. base64). Throws when either key is missing or malformed, or both are the same.
   */
  kekRotation(newKek: string): KekRotation;
}

export interface KekRotation {
  /** Public identifiers of the two KEKs (never the keys themselves). */
  readonly fromKekId: string;
  readonly toKekId: string;
  /**
   * `options` (as stored in `key_backend_options`) re-encrypted under the new KEK, or null when they
   * are under it already. Throws when they cannot be decrypted.
   */
  rewrap(options: Record<string, unknown>): Record<string, unknown> | null;
  /**
   * Optional: a secret the store keeps sealed under this KEK (a `SecretBox` envelope: webhook secrets,
   * ACME binding keys) sealed again under the new KEK, or null when it is under it already. Throws
   * when it cannot be opened. Backends whose KEK also seals those secrets offer it.
   */
  reseal?(sealed: unknown): unknown;
}

export function hasKekRotation<B extends object>(backend: B): backend is B & KekRotatingKeyBackend {
  return typeof (backend as Partial<KekRotatingKeyBackend>).kekRotation === 'function';
}

/** One private key a CA row refers to, as `StoredKeyRewriting.rewriteStoredKeys` hands it over. */
export interface StoredKeyReference {
  caId: number;
  caName: string;
  caSerial: string;
  /**
   * `ca`: the CA's own key; `ocsp`: the key of its delegated OCSP responder (in `ocsp_key_backend_alias`);
   * `scep_ra`: the key of its SCEP registration authority (`DelegateKeyStore`).
   */
  kind: 'ca' | 'ocsp' | 'scep_ra';
  /** The backend-private options stored for the key. */
  options: Record<string, unknown>;
}

/** One sealed secret the store keeps (`SecretBox` envelope), as `rewriteStoredKeys` hands it over. */
export interface SealedSecretReference {
  /** `webhook`: an endpoint's signing secret; `acme_eab`: an ACME external account binding's MAC key. */
  kind: 'webhook' | 'acme_eab';
  /** The webhook's id, or the binding key's `kid`. */
  id: string;
  sealed: unknown;
}

/**
 * Part of `Store`: rewrite the stored options of every key of one key backend atomically,
 * so that a rotation never leaves some keys under the old KEK and others under the new one.
 */
export interface StoredKeyRewriting {
  /**
   * In one transaction, with every CA row locked: hand each key of backend `alias` to `rewrite` and
   * store what it returns (null: leave that key as it is). If `rewrite` throws, nothing is changed
   * and its error is rethrown. Resolves to the number of keys rewritten. A store with an audit log
   * records a rotation that rewrote keys in the same transaction (`kek.rotated`), with `about` — public
   * facts such as the KEKs' identifiers, never a key.
   *
   * With `reseal`, the same transaction also hands every sealed secret the store keeps to it and
   * stores what it returns (null: leave it), so that webhook secrets and ACME binding keys move to a
   * new KEK together with the CA keys. Such a rewrite is not a secret rotation: no
   * `webhook.secret_rotated` event is written for it.
   */
  rewriteStoredKeys(
    alias: string,
    rewrite: (key: StoredKeyReference) => Record<string, unknown> | null | Promise<Record<string, unknown> | null>,
    about?: Record<string, string>,
    reseal?: (secret: SealedSecretReference) => unknown,
  ): Promise<number>;
}
