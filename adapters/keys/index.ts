/** Key backends: where CA private keys live. Addressed by the CA row's `key_backend_alias`. */

export { DEFAULT_KEY_BACKEND_ALIAS, defaultKeyBackend, type DefaultKeyBackendOptions } from './default-backend';
export { KeyBackendError, type KeyBackendErrorCode } from './errors';
export { KEK_ENV, kekId } from './kek';
