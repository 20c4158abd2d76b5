/**
 * `allowedHosts`: which host names the router answers for (README "Options"), as Django's
 * `ALLOWED_HOSTS` guards the original. Every absolute URL a module hands out (the ACME directory and
 * every URL after it, RFC 8555 §7.1.1) is built from the request's host, so a request for any other
 * host — a forged `Host` header, or a cache in front that would keep the answer — is refused before a
 * module sees it.
 *
 * Entries as Django's: an exact host name or address (`ca.example.com`, `192.0.2.1`, `[2001:db8::1]`),
 * `.example.com` for that name and every name under it, `*` for any host. The host is the one Express
 * resolves (`req.hostname`: the `Host` header, or `X-Forwarded-Host` where `trust proxy` believes the
 * proxy), compared without its port, case-insensitively, without a trailing dot.
 */
import * as net from 'net';
import type { NextFunction, Request, Response } from 'express';
import type { MountedModule } from './modules';
import { OptionsError, show, type OptionsEntry } from './option-checks';

/** The checked entries, lower case, IPv6 in brackets; null: every host (absent, or `*` among them). */
export type AllowedHosts = readonly string[] | null;

const NAME = /^\.?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** One entry, in the form `req.hostname` is compared in; null when it is not one. */
function entryOf(raw: string): string | null {
  const entry = raw.trim().toLowerCase().replace(/\.$/, '');
  if (entry === '*') return entry;
  const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry;
  if (net.isIPv6(bare)) return `[${bare}]`;
  if (entry.startsWith('[')) return null;
  return NAME.test(entry) && entry.length <= 254 ? entry : null;
}

function checkEntries(list: readonly unknown[], source: string, entry: OptionsEntry): AllowedHosts {
  if (list.length === 0) {
    throw new OptionsError(`${source} must name at least one host, or '*' for every host (got an empty list)`, entry);
  }
  const hosts = list.map((item) => {
    const host = typeof item === 'string' ? entryOf(item) : null;
    if (host === null) {
      throw new OptionsError(
        `${source}: ${show(item)} is not a host name, '.example.com' (a domain and its subdomains), an IP address or '*'; give hosts without scheme or port`,
        entry,
      );
    }
    return host;
  });
  return hosts.includes('*') ? null : hosts;
}

/** The `allowedHosts` option, else `CA_ALLOWED_HOSTS` (comma-separated), else every host. */
export function resolveAllowedHosts(value: unknown, env: Record<string, string | undefined>, entry: OptionsEntry): AllowedHosts {
  if (value !== undefined) {
    if (!Array.isArray(value)) {
      throw new OptionsError(
        `option \`allowedHosts\` must be an array of host names such as ['ca.example.com'] (got ${show(value)})`,
        entry,
      );
    }
    return checkEntries(value, 'option `allowedHosts`', entry);
  }
  const raw = env.CA_ALLOWED_HOSTS?.trim();
  if (!raw) return null;
  return checkEntries(
    raw.split(',').map((item) => item.trim()),
    'environment variable CA_ALLOWED_HOSTS',
    entry,
  );
}

/** Django's `validate_host`: an exact entry, or a `.domain` entry covering the name and those under it. */
export function isAllowedHost(host: string | undefined, allowed: AllowedHosts): boolean {
  if (allowed === null) return true;
  if (!host) return false;
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((entry) => (entry.startsWith('.') ? name === entry.slice(1) || name.endsWith(entry) : name === entry));
}

/** How a module answers a request for a host it does not serve (a 400 in its own error format). */
export type RefuseHost = (req: Request, res: Response, detail: string) => void;

/** `module`, answering only the allowed hosts (every host when `allowed` is null: `module` itself). */
export function servingAllowedHosts(module: MountedModule, allowed: AllowedHosts, refuse: RefuseHost): MountedModule {
  if (allowed === null) return module;
  return {
    prefix: module.prefix,
    close: () => module.close(),
    handle(req: Request, res: Response, next: NextFunction): void {
      const host = req.hostname;
      if (isAllowedHost(host, allowed)) return module.handle(req, res, next);
      // Quoted and cut short: the header is the client's, and must not make the answer long.
      refuse(req, res, `Invalid host ${JSON.stringify((host ?? '').slice(0, 100))}: this server does not answer for it (allowedHosts).`);
    },
  };
}
