/**
 * Checks shared by the modules' option validators (helmet's habit: each module validates its own
 * options when it is constructed). Every mistake is an `OptionsError` that names the function the
 * host called, the option, what was expected and what was given — never later, inside a request.
 */
import { OptionsError, type KeyBackend, type Logger, type Store } from '../ports';
import { DEFAULT_URL_PATH, environment, SettingsError, urlPathProblem, urlPathSetting, type Env } from '../settings';
import { isPlainObject } from '../x509/plain-object';
import type { LogError } from './error-catch';

/** The host's entry point the message starts with, e.g. `createCaApiRouter`. */
export type OptionsEntry =
  'createCaApiRouter' | 'createRevocationRouter' | 'createMetricsRouter' | 'createWebhookDelivery' | 'createCaAdminRouter';

export { OptionsError };

export { DEFAULT_URL_PATH };

/** The environment of an entry's defaults: its `env` option, else the process's (lib/settings). */
export { environment };

/** A short, safe rendering of a bad value for an error message. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return 'an array';
  return 'an object';
}

/** Class instances count too (a Store is usually one). */
export function isObjectLike(v: unknown): v is object {
  return (typeof v === 'object' && v !== null) || typeof v === 'function';
}

export function hasMethods(v: unknown, names: readonly string[]): boolean {
  return isObjectLike(v) && names.every((n) => typeof (v as Record<string, unknown>)[n] === 'function');
}

/** The options object itself, and no option the entry does not know (a typo would otherwise be ignored). */
export function checkOptionNames(options: unknown, known: readonly string[], example: string, entry: OptionsEntry): void {
  if (!isObjectLike(options)) throw new OptionsError(`expected an options object such as ${example} (got ${show(options)})`, entry);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new OptionsError(`unknown option \`${key}\`; known options are ${known.join(', ')}`, entry);
  }
}

/**
 * A setting of the environment (lib/settings) read for `entry`: its `SettingsError` becomes an
 * `OptionsError` with the same words, so that the router and `ca-admin` say the same about one mistake.
 */
export function fromEnvironment<T>(read: () => T, entry: OptionsEntry = 'createCaApiRouter'): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof SettingsError) throw new OptionsError(e.message, entry);
    throw e;
  }
}

/** A boolean option with its default. */
export function checkBoolean(name: string, value: unknown, fallback: boolean, entry: OptionsEntry = 'createCaApiRouter'): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new OptionsError(`option \`${name}\` must be true or false (got ${show(value)})`, entry);
  return value;
}

function checkUrlPath(value: unknown, source: string, entry: OptionsEntry): string {
  const problem = urlPathProblem(value);
  if (problem) throw new OptionsError(`${source} ${problem}`, entry);
  return value as string;
}

/** The `urlPath` option, else `CA_URL_PATH` (the original's setting, lib/settings), else `'django_ca/'`. */
export function resolveUrlPath(value: unknown, env: Env, entry: OptionsEntry): string {
  if (value !== undefined) return checkUrlPath(value, 'option `urlPath`', entry);
  return fromEnvironment(() => urlPathSetting(env), entry);
}

/** The store's shape: `methods` of the Store port (lib/ports) that the entry needs. */
export function checkStore(store: unknown, methods: readonly string[], entry: OptionsEntry): Store | null {
  if (store === undefined || store === null) return null;
  if (!hasMethods(store, methods)) {
    throw new OptionsError('option `store` must implement the Store port of lib/ports (e.g. knexStore(knex(...)))', entry);
  }
  return store as Store;
}

/** Key backends by alias, as given (`{}` when absent: the package entry adds the default backend). */
export function checkKeyBackends(value: unknown, entry: OptionsEntry): Record<string, KeyBackend> {
  const keyBackends = value ?? {};
  if (!isPlainObject(keyBackends)) {
    throw new OptionsError(`option \`keyBackends\` must be an object mapping aliases to key backends (got ${show(keyBackends)})`, entry);
  }
  for (const [alias, backend] of Object.entries(keyBackends)) {
    if (!hasMethods(backend, ['createKey', 'importKey', 'getSigner'])) {
      throw new OptionsError(
        `option \`keyBackends\`: '${alias}' must implement the KeyBackend port (createKey, importKey, getSigner)`,
        entry,
      );
    }
    if ((backend as KeyBackend).alias !== alias) {
      throw new OptionsError(
        `option \`keyBackends\`: the backend under '${alias}' reports alias ${show((backend as KeyBackend).alias)}; the key and the alias must match`,
        entry,
      );
    }
  }
  return { ...(keyBackends as Record<string, KeyBackend>) };
}

/**
 * Key backends a router signs with must be able to open keys: a backend that says it cannot (the
 * default one without `CA_KEY_ENCRYPTION_KEY`) is an `OptionsError` now, not a failed order or a
 * 503 on every CRL later.
 */
export function checkKeyBackendsConfigured(keyBackends: Record<string, KeyBackend>, entry: OptionsEntry): void {
  for (const [alias, backend] of Object.entries(keyBackends)) {
    const problem = backend.configurationProblem?.();
    if (problem) throw new OptionsError(`option \`keyBackends\`: '${alias}' cannot open any key: ${problem}`, entry);
  }
}

/** `logger`: null when absent, else an object with the `Logger` port's methods. */
export function checkLogger(value: unknown, entry: OptionsEntry): Logger | null {
  if (value === undefined) return null;
  const l = value as Partial<Logger> | null;
  if (!l || typeof l !== 'object' || !(['info', 'warn', 'error', 'child'] as const).every((m) => typeof l[m] === 'function')) {
    throw new OptionsError('option `logger` must implement the Logger port: info, warn, error and child', entry);
  }
  return l as Logger;
}

/** A `LogError` that writes through `logger`: the message, and the error as the `err` field (redacted by the logger). */
export function loggerLogError(logger: Logger): LogError {
  return (message, error) => logger.error(message, { err: error });
}

/** `logError`, default `console.error`. */
export function checkLogError(value: unknown, entry: OptionsEntry): LogError {
  if (value === undefined) return (message, error) => console.error(message, error);
  if (typeof value !== 'function') throw new OptionsError('option `logError` must be a function (message, error) => void', entry);
  return value as LogError;
}

/**
 * Where an entry point reports unexpected errors, from its `logger` and deprecated `logError`
 * options (every entry point takes both, docs/operations/logs.md): `logError` when given, else through
 * `logger`, else `console.error`.
 */
export function resolveErrorLog(
  options: { logger?: unknown; logError?: unknown },
  entry: OptionsEntry,
): { logger: Logger | null; logError: LogError } {
  const logger = checkLogger(options.logger, entry);
  const logError = options.logError === undefined && logger ? loggerLogError(logger) : checkLogError(options.logError, entry);
  return { logger, logError };
}
