/**
 * Options of the ACME module (docs/guides/acme.md), validated when the router is built. Each setting with
 * a name in the original reads its environment variable when the option is absent:
 * `CA_ENABLE_ACME`, `CA_ACME_ORDER_VALIDITY`, `CA_ACME_DEFAULT_CERT_VALIDITY`,
 * `CA_ACME_MAX_CERT_VALIDITY`, `CA_DEFAULT_CA`. Durations in the environment are a number of days
 * (the original's integer form) or a number with a unit: `90s`, `30m`, `1h`, `45d`. `CA_ENABLE_ACME`
 * and `CA_DEFAULT_CA` arrive read by the settings (lib/settings, through lib/options.ts), as
 * `ca-admin` reads them.
 */
import { OptionsError, checkBoolean, checkOptionNames, isObjectLike, show } from '../http/option-checks';
import { hasMethods } from '../http/option-checks';
import { sanitizeSerial } from '../http/path-matcher';
import type { ChallengeValidator, SecretBox } from '../ports';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A limit of `limit` events per `windowMs`, per account or per address. */
export interface RateLimit {
  limit: number;
  windowMs: number;
}

export interface AcmeOptions {
  /** Serve ACME under `/{urlPath}acme/` (`CA_ENABLE_ACME`). Default false (docs/guides/acme.md: opt-in). */
  enabled?: boolean;
  /** How long a new order (and its authorizations) may take to become valid (`CA_ACME_ORDER_VALIDITY`). 60 s to 1 day; default 1 hour. */
  orderValidityMs?: number;
  /** Validity of certificates whose order names no `notAfter` (`CA_ACME_DEFAULT_CERT_VALIDITY`). 1 to 365 days; default 45 days. */
  defaultCertValidityMs?: number;
  /** The longest validity an order may ask for (`CA_ACME_MAX_CERT_VALIDITY`). 1 to 365 days, ≥ the default; default 90 days. */
  maxCertValidityMs?: number;
  /**
   * Serial of the CA behind `directory/`; default `CA_DEFAULT_CA` (a serial or a name), else the
   * usable ACME CA that expires last, ties to the lowest serial (lib/ca/default-ca.ts).
   */
  defaultCa?: string | null;
  /** Checks challenges (http-01, dns-01, tls-alpn-01). Default: the package's validator, configured by `CA_ACME_DNS_SERVERS`, `CA_ACME_HTTP01_PORT`, `CA_ACME_TLS_ALPN01_PORT`. */
  validator?: ChallengeValidator;
  /** Opens the sealed MAC keys of external account bindings. Default: sealed under `CA_KEY_ENCRYPTION_KEY`, as CA keys are. */
  eabSecrets?: SecretBox;
  /** Attempts per challenge before it is `invalid` (RFC 8555 §8.2 retries). Default 5. */
  validationAttempts?: number;
  /**
   * Delay before the first retry of a validation (or of an issuance that failed); doubled for each
   * further one, at most an hour, of which a random half is waited off (equal jitter, docs/DESIGN.md
   * "Back-off"). Default 2000 ms.
   */
  validationRetryMs?: number;
  /** How long finalize waits for the certificate before answering `processing` with `Retry-After`. Default 10000 ms (lego waits 30 s). */
  finalizeWaitMs?: number;
  /**
   * How long a validation or an issuance begun by one instance is left to it before another instance
   * may take it over (the first died or stalled). Longer than one attempt takes: the validator's
   * timeout (10 s by default) or one signature. 1000 ms to 1 hour; default 60000 ms.
   */
  leaseMs?: number;
  /** New orders per account (`rateLimited` beyond). Default 300 per 3 hours (Let's Encrypt's); false: none. */
  newOrdersPerAccount?: RateLimit | false;
  /** New accounts per client address. Default 50 per 3 hours; false: none. */
  newAccountsPerAddress?: RateLimit | false;
}

export interface ResolvedAcmeOptions {
  enabled: boolean;
  orderValidityMs: number;
  defaultCertValidityMs: number;
  maxCertValidityMs: number;
  defaultCa: string | null;
  validator: ChallengeValidator | null;
  eabSecrets: SecretBox | null;
  validationAttempts: number;
  validationRetryMs: number;
  finalizeWaitMs: number;
  leaseMs: number;
  newOrdersPerAccount: RateLimit | null;
  newAccountsPerAddress: RateLimit | null;
}

const KNOWN = [
  'enabled',
  'orderValidityMs',
  'defaultCertValidityMs',
  'maxCertValidityMs',
  'defaultCa',
  'validator',
  'eabSecrets',
  'validationAttempts',
  'validationRetryMs',
  'finalizeWaitMs',
  'leaseMs',
  'newOrdersPerAccount',
  'newAccountsPerAddress',
];

/** `45` (days), `90s`, `30m`, `1h`, `45d` → milliseconds; null when the text is none of these. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/.exec(text);
  if (!m) return null;
  const unit = { s: SECOND, m: MINUTE, h: HOUR, d: DAY, '': DAY }[m[2] as 's' | 'm' | 'h' | 'd' | ''];
  return Math.round(Number(m[1]) * unit);
}

function duration(
  name: string,
  envName: string,
  given: unknown,
  env: Record<string, string | undefined>,
  fallback: number,
  bounds: [number, number],
): number {
  let value: number;
  if (given !== undefined) {
    if (typeof given !== 'number' || !Number.isFinite(given))
      throw new OptionsError(`option \`acme.${name}\` must be a number of milliseconds, got ${show(given)}`);
    value = given;
  } else if (env[envName] !== undefined) {
    const parsed = parseDuration(env[envName] ?? '');
    if (parsed === null)
      throw new OptionsError(`${envName} must be a number of days or a number with a unit (90s, 30m, 1h, 45d), got ${show(env[envName])}`);
    value = parsed;
  } else value = fallback;
  if (value < bounds[0] || value > bounds[1]) {
    const where = given !== undefined ? `option \`acme.${name}\`` : envName;
    throw new OptionsError(`${where} must lie between ${bounds[0] / SECOND} s and ${bounds[1] / DAY} days, got ${value / SECOND} s`);
  }
  return value;
}

function positiveInteger(name: string, given: unknown, fallback: number): number {
  if (given === undefined) return fallback;
  if (typeof given !== 'number' || !Number.isInteger(given) || given < 0) {
    throw new OptionsError(`option \`acme.${name}\` must be a non-negative integer, got ${show(given)}`);
  }
  return given;
}

function boundedInteger(name: string, given: unknown, fallback: number, min: number, max: number): number {
  if (given === undefined) return fallback;
  if (typeof given !== 'number' || !Number.isInteger(given) || given < min || given > max) {
    throw new OptionsError(`option \`acme.${name}\` must be an integer from ${min} to ${max} (ms), got ${show(given)}`);
  }
  return given;
}

function rateLimit(name: string, given: unknown, fallback: RateLimit): RateLimit | null {
  if (given === false) return null;
  if (given === undefined) return fallback;
  const r = given as Partial<RateLimit>;
  if (!isObjectLike(given) || !Number.isInteger(r.limit) || (r.limit ?? 0) < 1 || typeof r.windowMs !== 'number' || r.windowMs <= 0) {
    throw new OptionsError(`option \`acme.${name}\` must be false or { limit: <integer ≥ 1>, windowMs: <ms> }, got ${show(given)}`);
  }
  return { limit: r.limit as number, windowMs: r.windowMs };
}

/**
 * What the environment says where an option is absent: `CA_ENABLE_ACME` and `CA_DEFAULT_CA` as the
 * settings read them (lib/settings, the same reading as `ca-admin`'s), the durations from `env`.
 */
export interface AcmeEnvDefaults {
  enabled: boolean;
  defaultCa: string | null;
}

export function resolveAcmeOptions(
  given: unknown,
  env: Record<string, string | undefined>,
  fromEnv: AcmeEnvDefaults = { enabled: false, defaultCa: null },
): ResolvedAcmeOptions {
  if (given !== undefined && !isObjectLike(given)) throw new OptionsError(`option \`acme\` must be an object, got ${show(given)}`);
  const o = (given ?? {}) as AcmeOptions;
  checkOptionNames(o, KNOWN, '{ acme: { enabled: true } }', 'createCaApiRouter');
  const enabled = checkBoolean('acme.enabled', o.enabled, fromEnv.enabled);
  const orderValidityMs = duration('orderValidityMs', 'CA_ACME_ORDER_VALIDITY', o.orderValidityMs, env, HOUR, [MINUTE, DAY]);
  const defaultCertValidityMs = duration('defaultCertValidityMs', 'CA_ACME_DEFAULT_CERT_VALIDITY', o.defaultCertValidityMs, env, 45 * DAY, [
    DAY,
    365 * DAY,
  ]);
  const maxCertValidityMs = duration('maxCertValidityMs', 'CA_ACME_MAX_CERT_VALIDITY', o.maxCertValidityMs, env, 90 * DAY, [
    DAY,
    365 * DAY,
  ]);
  if (maxCertValidityMs < defaultCertValidityMs) {
    throw new OptionsError(
      'the maximum ACME certificate validity (CA_ACME_MAX_CERT_VALIDITY) must not be shorter than the default (CA_ACME_DEFAULT_CERT_VALIDITY)',
    );
  }
  const defaultCa = o.defaultCa ?? null;
  if (defaultCa !== null && (typeof defaultCa !== 'string' || !/^[0-9A-Fa-f:]+$/.test(defaultCa))) {
    throw new OptionsError(`option \`acme.defaultCa\` must be a CA serial in hex, got ${show(defaultCa)}`);
  }
  if (o.eabSecrets !== undefined && !hasMethods(o.eabSecrets, ['seal', 'open'])) {
    throw new OptionsError(`option \`acme.eabSecrets\` must have seal(secret) and open(sealed) methods, got ${show(o.eabSecrets)}`);
  }
  if (o.validator !== undefined && !hasMethods(o.validator, ['validate'])) {
    throw new OptionsError(`option \`acme.validator\` must have a validate(challenge) method, got ${show(o.validator)}`);
  }
  return {
    enabled,
    orderValidityMs,
    defaultCertValidityMs,
    maxCertValidityMs,
    // CA_DEFAULT_CA may also name the CA, as for ca-admin (lib/ca/default-ca.ts).
    defaultCa: defaultCa === null ? fromEnv.defaultCa : sanitizeSerial(defaultCa),
    validator: o.validator ?? null,
    eabSecrets: o.eabSecrets ?? null,
    validationAttempts: Math.max(1, positiveInteger('validationAttempts', o.validationAttempts, 5)),
    validationRetryMs: positiveInteger('validationRetryMs', o.validationRetryMs, 2000),
    finalizeWaitMs: positiveInteger('finalizeWaitMs', o.finalizeWaitMs, 10_000),
    leaseMs: boundedInteger('leaseMs', o.leaseMs, MINUTE, SECOND, HOUR),
    newOrdersPerAccount: rateLimit('newOrdersPerAccount', o.newOrdersPerAccount, { limit: 300, windowMs: 3 * HOUR }),
    newAccountsPerAddress: rateLimit('newAccountsPerAddress', o.newAccountsPerAddress, { limit: 50, windowMs: 3 * HOUR }),
  };
}
