/**
 * Errors of key backends. These are operator problems (a missing or wrong key-encryption key, a CA
 * whose key is not where its row says), not bad client input: the API reports them as server
 * errors, the CLI prints the message. Messages never contain key material or passwords.
 */
export type KeyBackendErrorCode =
  | 'no-kek' // no key-encryption key configured
  | 'bad-kek' // the configured key-encryption key is malformed
  | 'wrong-kek' // the CA's key was encrypted under another key-encryption key
  | 'corrupt' // stored key data fails authentication or has an unknown format
  | 'no-key' // the CA row holds no key for this backend, or the HSM has no key by its label and id
  | 'unsupported'; // the HSM cannot do this (a key type, a mechanism, an import)

export class KeyBackendError extends Error {
  constructor(
    readonly code: KeyBackendErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'KeyBackendError';
  }
}
