/**
 * What a PKCS#11 return value means for the backend. The binding's errors carry the CKR_ name and code
 * (pkcs11js `Pkcs11Error`); nothing here ever sees or repeats the PIN.
 */
import type { Binding } from './binding';

/** The code of a pkcs11js `Pkcs11Error`, or null for anything else. */
export function ckr(error: unknown): number | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : null;
}

/** The CKR_ name the binding put into its message (e.g. `CKR_PIN_INCORRECT`), else the message. */
export function ckrText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const name = /CKR_[A-Z_]+/.exec(message);
  return name ? name[0] : message;
}

/**
 * Return values after which the sessions are gone but a new login may work (PKCS#11 v2.40 §5.1.6,
 * §11.1: a token removed and inserted again, a library reset, sessions closed by another application):
 * the backend drops its sessions and handles, logs in again and tries once more.
 */
export function isResetCode(b: Binding, code: number | null): boolean {
  if (code === null) return false;
  return [
    b.CKR_SESSION_HANDLE_INVALID,
    b.CKR_SESSION_CLOSED,
    b.CKR_USER_NOT_LOGGED_IN,
    b.CKR_DEVICE_REMOVED,
    b.CKR_TOKEN_NOT_PRESENT,
    b.CKR_TOKEN_NOT_RECOGNIZED,
    b.CKR_DEVICE_ERROR,
    b.CKR_SLOT_ID_INVALID,
    b.CKR_KEY_HANDLE_INVALID,
    b.CKR_OBJECT_HANDLE_INVALID,
    b.CKR_CRYPTOKI_NOT_INITIALIZED,
    b.CKR_GENERAL_ERROR,
  ].includes(code);
}

/** Return values that say the token cannot do what was asked (a key type, a mechanism, an import). */
export function isUnsupportedCode(b: Binding, code: number | null): boolean {
  if (code === null) return false;
  return [
    b.CKR_MECHANISM_INVALID,
    b.CKR_MECHANISM_PARAM_INVALID,
    b.CKR_ATTRIBUTE_VALUE_INVALID,
    b.CKR_ATTRIBUTE_TYPE_INVALID,
    b.CKR_TEMPLATE_INCONSISTENT,
    b.CKR_TEMPLATE_INCOMPLETE,
    b.CKR_DOMAIN_PARAMS_INVALID,
    0x140, // CKR_CURVE_NOT_SUPPORTED (v2.40), unnamed in pkcs11js
    b.CKR_KEY_SIZE_RANGE,
    b.CKR_FUNCTION_NOT_SUPPORTED,
  ].includes(code);
}
