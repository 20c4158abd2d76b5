/** Key backends: where CA private keys live. Addressed by the CA row's `key_backend_alias`. */
import type { KeyBackend } from '../../lib/ports';
import { KeyBackendError } from './errors';

export { DEFAULT_KEY_BACKEND_ALIAS, defaultKeyBackend, type DefaultKeyBackendOptions } from './default-backend';
export { KeyBackendError, type KeyBackendErrorCode } from './errors';
export { KEK_ENV, kekId } from './kek';

/** alias → backend, refusing two backends with one alias. */
export function keyBackendsByAlias(backends: readonly KeyBackend[]): ReadonlyMap<string, KeyBackend> {
  const map = new Map<string, KeyBackend>();
  for (const backend of backends) {
    if (map.has(backend.alias)) throw new Error(`Two key backends share the alias "${backend.alias}"`);
    map.set(backend.alias, backend);
  }
  return map;
}

/** The backend a CA row names, with a message an operator can act on when it is not configured. */
export function keyBackendFor(backends: ReadonlyMap<string, KeyBackend>, alias: string): KeyBackend {
  const backend = backends.get(alias);
  if (!backend) {
    throw new KeyBackendError(
      'no-key',
      `No key backend "${alias}" is configured (configured: ${[...backends.keys()].join(', ') || 'none'}).`,
    );
  }
  return backend;
}
