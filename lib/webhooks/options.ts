/**
 * Options of webhook delivery (README "Webhooks"), validated when it is constructed: as
 * `createCaApiRouter`'s `webhooks` option or by `createWebhookDelivery`. Every mistake is an
 * `OptionsError` naming the option.
 */
import type { LogError } from '../http/error-catch';
import {
  checkBoolean,
  checkLogError,
  checkOptionNames,
  hasMethods,
  isObjectLike,
  OptionsError,
  show,
  type OptionsEntry,
} from '../http/option-checks';
import { hasEventLog, hasWebhookStore, type EventLog, type SecretBox, type Store, type WebhookStoreProvider } from '../ports';

export interface WebhookDeliveryTuning {
  /** How often this instance looks for endpoints with events to deliver (ms). Default 1000. */
  pollMs?: number;
  /** Give up on one request after this long (ms). Default 10000. */
  timeoutMs?: number;
  /** Attempts at one event before it is dead-lettered and the endpoint moves on. Default 10. */
  maxAttempts?: number;
  /** Back-off after the first failure (ms), doubled after each further one. Default 5000. */
  backoffBaseMs?: number;
  /** The longest back-off (ms). Default 3600000 (an hour). */
  backoffMaxMs?: number;
  /** Endpoints this instance delivers to at once. Default 4. */
  concurrency?: number;
  /** Announce certificates this many days before their `not_after` (`certificate.expiring`); 0: never. Default 30. */
  expiringDays?: number;
  /** How often this instance looks for expiring certificates (ms); one instance of the fleet does at a time. Default 3600000. */
  expiringScanMs?: number;
}

/** `createCaApiRouter`'s `webhooks` option. */
export interface WebhookOptions extends WebhookDeliveryTuning {
  /** Deliver from this router's process. Default false: webhooks are opt-in. */
  enabled?: boolean;
}

/** Options of `createWebhookDelivery`: delivery alone, e.g. in a worker process beside the API's. */
export interface WebhookDeliveryOptions extends WebhookDeliveryTuning {
  /** The store whose events are delivered (the same store as the API's). Required. */
  store: Store;
  /** Opens the endpoints' secrets. Default: the box under `CA_KEY_ENCRYPTION_KEY` of `env`. */
  secrets?: SecretBox;
  env?: Record<string, string | undefined>;
  logError?: LogError;
}

export interface ResolvedWebhookTuning {
  pollMs: number;
  timeoutMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  concurrency: number;
  expiringDays: number;
  expiringScanMs: number;
}

export interface ResolvedWebhookOptions extends ResolvedWebhookTuning {
  enabled: boolean;
}

const TUNING: Record<keyof ResolvedWebhookTuning, { fallback: number; min: number; max: number }> = {
  pollMs: { fallback: 1000, min: 10, max: 3_600_000 },
  timeoutMs: { fallback: 10_000, min: 100, max: 300_000 },
  maxAttempts: { fallback: 10, min: 1, max: 1000 },
  backoffBaseMs: { fallback: 5000, min: 10, max: 86_400_000 },
  backoffMaxMs: { fallback: 3_600_000, min: 10, max: 604_800_000 },
  concurrency: { fallback: 4, min: 1, max: 64 },
  expiringDays: { fallback: 30, min: 0, max: 3650 },
  expiringScanMs: { fallback: 3_600_000, min: 10, max: 86_400_000 },
};
const TUNING_NAMES = Object.keys(TUNING) as (keyof ResolvedWebhookTuning)[];

function resolveTuning(o: WebhookDeliveryTuning, prefix: string, entry: OptionsEntry): ResolvedWebhookTuning {
  const out = {} as ResolvedWebhookTuning;
  for (const name of TUNING_NAMES) {
    const { fallback, min, max } = TUNING[name];
    const value = o[name];
    if (value === undefined) out[name] = fallback;
    else if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new OptionsError(`option \`${prefix}${name}\` must be an integer from ${min} to ${max} (got ${show(value)})`, entry);
    } else out[name] = value;
  }
  if (out.backoffMaxMs < out.backoffBaseMs) {
    throw new OptionsError(`option \`${prefix}backoffMaxMs\` must not be below \`${prefix}backoffBaseMs\``, entry);
  }
  return out;
}

/** `createCaApiRouter`'s `webhooks` option. */
export function resolveWebhookOptions(given: unknown): ResolvedWebhookOptions {
  const entry = 'createCaApiRouter';
  if (given !== undefined && (!isObjectLike(given) || typeof given === 'function' || Array.isArray(given))) {
    throw new OptionsError(`option \`webhooks\` must be an object such as { enabled: true } (got ${show(given)})`, entry);
  }
  const o = (given ?? {}) as WebhookOptions;
  checkOptionNames(o, ['enabled', ...TUNING_NAMES], '{ webhooks: { enabled: true } }', entry);
  return { enabled: checkBoolean('webhooks.enabled', o.enabled, false, entry), ...resolveTuning(o, 'webhooks.', entry) };
}

export interface ResolvedWebhookDeliveryOptions extends ResolvedWebhookTuning {
  store: Store & WebhookStoreProvider & EventLog;
  secrets: SecretBox | null;
  logError: LogError;
}

/** Options of `createWebhookDelivery` (the box is filled in by the package entry when not given). */
export function resolveWebhookDeliveryOptions(options: WebhookDeliveryOptions): ResolvedWebhookDeliveryOptions {
  const entry = 'createWebhookDelivery';
  checkOptionNames(options, ['store', 'secrets', 'env', 'logError', ...TUNING_NAMES], '{ store }', entry);
  return {
    store: checkWebhookStore(options.store, entry, ''),
    secrets: checkSecretBox(options.secrets, entry),
    logError: checkLogError(options.logError, entry),
    ...resolveTuning(options, '', entry),
  };
}

export function checkWebhookStore(store: unknown, entry: OptionsEntry, prefix: string): Store & WebhookStoreProvider & EventLog {
  if (!isObjectLike(store) || !hasWebhookStore(store) || !hasEventLog(store)) {
    throw new OptionsError(
      `${prefix}option \`store\` must be a store with the webhook and event-log capabilities (knexStore has them), e.g. { store: knexStore(db) }`,
      entry,
    );
  }
  return store as Store & WebhookStoreProvider & EventLog;
}

function checkSecretBox(box: unknown, entry: OptionsEntry): SecretBox | null {
  if (box === undefined) return null;
  if (!hasMethods(box, ['seal', 'open'])) {
    throw new OptionsError('option `secrets` must be a SecretBox { seal(secret), open(sealed) }', entry);
  }
  return box as SecretBox;
}
