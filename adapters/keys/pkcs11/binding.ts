/**
 * The PKCS#11 binding (pkcs11js), an optional dependency: installing express-ca-api without an HSM
 * stays pure JavaScript. It is loaded when a PKCS#11 backend is constructed, and a missing binding is
 * an `OptionsError` that says what to install (docs/operations/hsm.md).
 */
import type * as Pkcs11js from 'pkcs11js';
import { OptionsError } from '../../../lib/ports';

export type Binding = typeof Pkcs11js;
export type Pkcs11Module = Pkcs11js.PKCS11;
export type Handle = Pkcs11js.Handle;
export type Template = Pkcs11js.Template;
export type Mechanism = Pkcs11js.Mechanism;

export const ENTRY = 'pkcs11KeyBackend';

/** PKCS#11 3.0 values (§6.3.1, §6.3.21) that pkcs11js 2.1 has no names for. */
export const CKK_EC_EDWARDS = 0x40;
export const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
export const CKM_EDDSA = 0x1057;

let loaded: Binding | null = null;

export function loadBinding(): Binding {
  if (loaded) return loaded;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require('pkcs11js') as Binding;
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND';
    throw new OptionsError(
      missing
        ? 'the PKCS#11 binding is not installed: run `npm install pkcs11js` (an optional dependency of express-ca-api, ' +
            'built with node-gyp: python3, make and a C++ compiler)'
        : `the PKCS#11 binding pkcs11js could not be loaded (${(e as Error).message}); rebuild it with \`npm rebuild pkcs11js\``,
      ENTRY,
    );
  }
  return loaded;
}
