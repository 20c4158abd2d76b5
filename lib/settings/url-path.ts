/**
 * `CA_URL_PATH` (docs/reference/options.md): the prefix under which the router serves the API and the public
 * revocation URLs, and which `init_ca` writes into the CRL, OCSP and CA-issuer URLs of a new CA's
 * certificates (docs/COMPATIBILITY.md §3.7). One rule for both, so that no certificate names a URL
 * the router refuses to serve.
 */
import { SettingsError } from './errors';
import type { Env } from './switch';

export const DEFAULT_URL_PATH = 'django_ca/';

/**
 * What is wrong with `value` as a URL path, as the rest of a sentence starting with its source
 * (`option \`urlPath\``, `environment variable CA_URL_PATH`); null when it is a valid one.
 */
export function urlPathProblem(value: unknown): string | null {
  const got = `(got ${typeof value === 'string' ? JSON.stringify(value) : String(value)})`;
  if (typeof value !== 'string') return `must be a string such as 'django_ca/' or '' ${got}`;
  if (value.startsWith('/')) return `must not start with '/'; use 'django_ca/' rather than '/django_ca/' ${got}`;
  if (value !== '' && !value.endsWith('/')) return `must be '' or end with '/', e.g. '${value}/' ${got}`;
  // Only unreserved path characters: the value becomes part of a prefix match, of the OpenAPI paths
  // and of URLs in certificates, and must not smuggle in '..', '?', '#' or percent escapes.
  if (!/^([A-Za-z0-9._~-]+\/)*$/.test(value) || value.split('/').some((seg) => seg === '.' || seg === '..')) {
    return `may contain only letters, digits, '.', '_', '~', '-' and '/' separators, without empty, '.' or '..' segments ${got}`;
  }
  return null;
}

/** `CA_URL_PATH` of `env`, checked; unset → `django_ca/`. */
export function urlPathSetting(env: Env): string {
  const raw = env.CA_URL_PATH;
  if (raw === undefined) return DEFAULT_URL_PATH;
  const problem = urlPathProblem(raw);
  if (problem) throw new SettingsError('CA_URL_PATH', problem);
  return raw;
}
