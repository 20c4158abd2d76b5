/**
 * Typed errors of the X.509 engine.
 *
 * Every failure the engine reports is an `X509Error` with a machine-readable `code`, so that callers
 * (the REST API, the CLI) can map it to a status code without parsing messages. Validation failures of
 * API JSON carry a list of `ValidationIssue`s in the shape of a django-ninja 422 item, with `loc`
 * relative to the value that was validated (callers prefix it with where that value sits in a body).
 */

export type X509ErrorCode =
  | 'parse' // bytes are not the structure they claim to be (bad DER, wrong PEM label, truncated)
  | 'too-large' // input exceeds a size limit before we even try to parse it
  | 'unsupported' // well-formed but uses something we do not implement (an unknown key type, say)
  | 'validation' // API JSON that breaks a rule of docs/COMPATIBILITY.md §2
  | 'signature' // a signature does not verify
  | 'key'; // a key is missing, of the wrong type, or cannot be decrypted

export interface ValidationIssue {
  /** django-ninja error type, e.g. `value_error`, `missing`, `string_type`. */
  type: string;
  /** Path to the offending value, relative to the validated value. */
  loc: (string | number)[];
  msg: string;
}

export class X509Error extends Error {
  readonly code: X509ErrorCode;
  readonly issues: ValidationIssue[];

  constructor(code: X509ErrorCode, message: string, issues: ValidationIssue[] = []) {
    super(message);
    this.name = 'X509Error';
    this.code = code;
    this.issues = issues;
  }
}

export function parseError(message: string): X509Error {
  return new X509Error('parse', message);
}

/** A single validation problem; `loc` is relative to the value being validated. */
export function invalid(msg: string, loc: (string | number)[] = [], type = 'value_error'): X509Error {
  return new X509Error('validation', msg, [{ type, loc, msg }]);
}

/**
 * Run `fn` and, if it throws validation issues, prefix their `loc` with `prefix`.
 * Lets nested codecs report paths like `['value', 0, 'access_location', 'value']` without each codec
 * knowing where it is called from.
 */
export function atLoc<T>(prefix: (string | number)[], fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof X509Error && e.code === 'validation') {
      throw new X509Error(
        'validation',
        e.message,
        e.issues.map((i) => ({ ...i, loc: [...prefix, ...i.loc] })),
      );
    }
    throw e;
  }
}

/** Collects issues from several independent checks so that one response reports all of them. */
export function collectIssues(checks: (() => void)[]): void {
  const issues: ValidationIssue[] = [];
  for (const check of checks) {
    try {
      check();
    } catch (e) {
      if (e instanceof X509Error && e.code === 'validation') issues.push(...e.issues);
      else throw e;
    }
  }
  if (issues.length) throw new X509Error('validation', issues.map((i) => i.msg).join('; '), issues);
}
