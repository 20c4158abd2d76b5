/**
 * `CA_ALLOWED_HOSTS` (and the router's `allowedHosts` option, which takes the same entries): the host
 * names the router answers for, as Django's `ALLOWED_HOSTS` (docs/reference/options.md). Entries: an exact host
 * name or address (`ca.example.com`, `192.0.2.1`, `[2001:db8::1]`), `.example.com` for that name and
 * every name under it, `*` for any host.
 */
import * as net from 'net';
import { SettingsError, shown } from './errors';
import type { Env } from './switch';

/** The checked entries, lower case, IPv6 in brackets; null: every host (absent, or `*` among them). */
export type AllowedHosts = readonly string[] | null;

const NAME = /^\.?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** One entry, in the form a request's host is compared in; null when it is not one. */
export function allowedHostEntry(raw: string): string | null {
  const entry = raw.trim().toLowerCase().replace(/\.$/, '');
  if (entry === '*') return entry;
  const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry;
  if (net.isIPv6(bare)) return `[${bare}]`;
  if (entry.startsWith('[')) return null;
  return NAME.test(entry) && entry.length <= 254 ? entry : null;
}

/** What an entry must look like, for the messages of the option and the variable alike. */
export const ALLOWED_HOST_FORMS =
  "a host name, '.example.com' (a domain and its subdomains), an IP address or '*'; give hosts without scheme or port";

/** `CA_ALLOWED_HOSTS` (comma-separated); unset or empty: every host. */
export function allowedHostsSetting(env: Env): AllowedHosts {
  const raw = env.CA_ALLOWED_HOSTS?.trim();
  if (!raw) return null;
  const hosts = raw.split(',').map((item) => {
    const host = allowedHostEntry(item);
    if (host === null) throw new SettingsError('CA_ALLOWED_HOSTS', `: ${shown(item.trim())} is not ${ALLOWED_HOST_FORMS}`);
    return host;
  });
  return hosts.includes('*') ? null : hosts;
}
