/**
 * One options shape for `createCaApiRouter` (docs/reference/options.md): the ports (store, key backends,
 * authenticator, permissions, login limiter, order runner, logger) and the settings every way in
 * shares (urlPath, allowedHosts, profiles, defaultProfile, defaultExpires) at the top; each module's
 * own settings under its key — `rest`, `revocation`, `acme`, `metrics`, `webhooks` — as the
 * modules that came later (ACME, metrics, webhooks) have had them from the start.
 *
 * The REST API's and the revocation endpoints' settings were flattened into the top level before;
 * those names stay accepted for one release as deprecated aliases (`enableRestApi` = `rest.enabled`,
 * `serveRevocation` = `revocation.enabled`, ...). Giving a setting both ways is a mistake, reported as
 * one rather than silently preferring either.
 */
import { checkOptionNames, OptionsError } from './http/option-checks';
import type { OcspSigning } from './revocation-endpoints/options';

/** The REST API's own settings (`rest`). */
export interface RestSettings {
  /** Serve the API at all (`CA_ENABLE_REST_API`). Default false: the router only calls `next()`. */
  enabled?: boolean;
  /** How long sign/resign wait for their order before answering `pending` (ms). Default `DEFAULT_ORDER_WAIT_MS`. */
  orderWaitMs?: number;
  /** Finish orders in the sign request where this process runs the order runner. Default true. */
  signInRequest?: boolean;
  /** Largest request body in bytes. Default `DEFAULT_BODY_LIMIT` (2.5 MiB). */
  bodyLimit?: number;
}

/** The public revocation endpoints' own settings (`revocation`). */
export interface RevocationSettings {
  /** Serve the CA certificate, CRLs and OCSP under `/{urlPath}` beside the API. Default true. */
  enabled?: boolean;
  /** Who signs OCSP responses: `'delegate'` (default, an automatic responder certificate) or `'ca'`. */
  ocspSigning?: OcspSigning;
}

/** The deprecated top-level name of each module setting. */
const ALIASES = [
  ['enableRestApi', 'rest', 'enabled'],
  ['orderWaitMs', 'rest', 'orderWaitMs'],
  ['signInRequest', 'rest', 'signInRequest'],
  ['bodyLimit', 'rest', 'bodyLimit'],
  ['serveRevocation', 'revocation', 'enabled'],
  ['ocspSigning', 'revocation', 'ocspSigning'],
] as const;

type Alias = (typeof ALIASES)[number][0];
type Nested = { rest?: RestSettings; revocation?: RevocationSettings };

const NESTED_NAMES: Record<'rest' | 'revocation', string[]> = {
  rest: ALIASES.filter((a) => a[1] === 'rest').map((a) => a[2]),
  revocation: ALIASES.filter((a) => a[1] === 'revocation').map((a) => a[2]),
};

/**
 * The module settings as the resolution reads them (one name each, at the top), from either shape:
 * `rest.orderWaitMs` or its alias `orderWaitMs`, never both.
 */
export function moduleSettings<T extends Nested & Partial<Record<Alias, unknown>>>(options: T): Omit<T, 'rest' | 'revocation'> {
  const entry = 'createCaApiRouter';
  for (const key of ['rest', 'revocation'] as const) {
    if (options[key] !== undefined) checkOptionNames(options[key], NESTED_NAMES[key], `{ ${key}: { enabled: true } }`, entry);
  }
  const { rest, revocation, ...flat } = options;
  const given: Record<string, unknown> = flat;
  for (const [alias, module, name] of ALIASES) {
    const settings = (module === 'rest' ? rest : revocation) as Record<string, unknown> | undefined;
    const nested = settings?.[name];
    if (nested === undefined) continue;
    if (given[alias] !== undefined) {
      throw new OptionsError(
        `option \`${module}.${name}\` is also given as \`${alias}\`, its deprecated alias: give it once, as \`${module}.${name}\``,
        entry,
      );
    }
    given[alias] = nested;
  }
  return flat;
}
