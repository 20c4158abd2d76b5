/**
 * Ports of the ACME server (RFC 8555; docs/DESIGN.md "Domain events" and the ACME module to come):
 * optional store capabilities, in their own file like every other.
 */

/**
 * Anti-replay nonces (RFC 8555 §6.5): minted by any instance, accepted once by any instance on the
 * same database, refused after that or once expired. A nonce kept in one process's memory would
 * refuse every request that reaches another instance.
 */
export interface AcmeNonceStore {
  /** A new nonce (base64url, 43 characters: 32 random bytes), valid for `ttlMs`. */
  createAcmeNonce(ttlMs: number): Promise<string>;
  /** True exactly once for a nonce this store minted that has not expired; false otherwise. */
  consumeAcmeNonce(nonce: string): Promise<boolean>;
}

export function hasAcmeNonces<S extends object>(store: S): store is S & AcmeNonceStore {
  const s = store as Partial<AcmeNonceStore>;
  return typeof s.createAcmeNonce === 'function' && typeof s.consumeAcmeNonce === 'function';
}

/** An identifier of an ACME order (RFC 8555 §9.7.7: `dns`; RFC 8738: `ip`). */
export interface AcmeIdentifier {
  type: 'dns' | 'ip';
  /** A DNS name in lower case without a trailing dot (a wildcard's `*.` removed), or an IP address in canonical text form. */
  value: string;
}

export type AcmeChallengeType = 'http-01' | 'dns-01' | 'tls-alpn-01';

/** What a validator needs to check one challenge (RFC 8555 §8). */
export interface ChallengeToValidate {
  type: AcmeChallengeType;
  identifier: AcmeIdentifier;
  /** The challenge's token (base64url, RFC 8555 §8.3). */
  token: string;
  /** token + '.' + the account key's thumbprint (RFC 8555 §8.1). */
  keyAuthorization: string;
}

/** The problem a failed validation records in the challenge's `error` (RFC 8555 §8.2). */
export interface ValidationProblem {
  /** An ACME error name: `connection`, `dns`, `incorrectResponse`, `tls`, `unauthorized`, `malformed`... */
  type: 'connection' | 'dns' | 'incorrectResponse' | 'tls' | 'unauthorized' | 'malformed' | 'serverInternal';
  detail: string;
}

export type ValidationOutcome =
  | { valid: true }
  /**
   * `retryable`: the failure may go away by itself (a timeout, a refused connection, a DNS answer not
   * there yet), so the validation runner tries again until it runs out of attempts; a wrong answer is
   * final at once.
   */
  | { valid: false; problem: ValidationProblem; retryable: boolean };

/**
 * Checks challenges against the outside world (http-01, dns-01, tls-alpn-01). The default adapter
 * (adapters/acme-validation) resolves names through configured DNS servers and connects to configured
 * ports; a host may bring its own (a proxy, a multi-perspective checker).
 */
export interface ChallengeValidator {
  /** Never throws: every failure is an outcome. Resolves within the validator's own time limit. */
  validate(challenge: ChallengeToValidate): Promise<ValidationOutcome>;
}

/**
 * Seals secrets the store must keep but must not hold readable — the MAC keys of external account
 * bindings (RFC 8555 §7.3.4). The default seals with the key-encryption key (`CA_KEY_ENCRYPTION_KEY`,
 * adapters/keys), as the CA keys are.
 */
export interface SecretBox {
  /** A JSON value the store keeps. */
  seal(secret: Buffer): unknown;
  /** The secret; throws when `sealed` was not sealed by this box (another key, tampered). */
  open(sealed: unknown): Buffer;
}
