/** The one test for "a JSON object" used wherever untrusted input or options are checked. */

/** A non-null object that is not an array (nor a Date: a parsed JSON value never is one). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}
