/**
 * One loaded PKCS#11 library per path and process. `C_Initialize` may be called once per process and
 * library (PKCS#11 v2.40 §5.4: a second call answers CKR_CRYPTOKI_ALREADY_INITIALIZED), and the
 * login state is shared by all sessions of an application (§5.6): backends on the same library share
 * the module, and the last one closed finalizes it.
 */
import { ENTRY, loadBinding, type Binding, type Pkcs11Module } from './binding';
import { OptionsError } from '../../../lib/ports';

interface Loaded {
  binding: Binding;
  module: Pkcs11Module;
  users: number;
  /**
   * SHA-256 of the PIN each token was logged in with, by token label. A second backend on a token
   * this process is logged in to gets CKR_USER_ALREADY_LOGGED_IN whatever PIN it gives; it may use
   * the login only with the same PIN (sessions.ts).
   */
  logins: Map<string, Buffer>;
}

const libraries = new Map<string, Loaded>();

export function openLibrary(path: string): Loaded {
  const found = libraries.get(path);
  if (found) {
    found.users += 1;
    return found;
  }
  const binding = loadBinding();
  const module = new binding.PKCS11();
  try {
    module.load(path);
  } catch (e) {
    throw new OptionsError(`${path}: the PKCS#11 library could not be loaded (${(e as Error).message})`, ENTRY);
  }
  try {
    // OS locking: the backend's sessions are used from libuv's threads (C_SignAsync).
    module.C_Initialize({ flags: binding.CKF_OS_LOCKING_OK });
  } catch (e) {
    if ((e as { code?: number }).code !== binding.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
      throw new OptionsError(`${path}: C_Initialize failed (${(e as Error).message})`, ENTRY);
    }
  }
  const loaded = { binding, module, users: 1, logins: new Map<string, Buffer>() };
  libraries.set(path, loaded);
  return loaded;
}

export function closeLibrary(path: string): void {
  const found = libraries.get(path);
  if (!found) return;
  found.users -= 1;
  if (found.users > 0) return;
  libraries.delete(path);
  found.logins.clear();
  try {
    found.module.C_Finalize();
  } catch {
    // already finalized or the token is gone: nothing left to release
  }
  try {
    found.module.close();
  } catch {
    // as above
  }
}
