/**
 * `allowedHosts`: which host names the router answers for (docs/reference/options.md), as Django's
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
import type { NextFunction, Request, Response } from 'express';
import { ALLOWED_HOST_FORMS, allowedHostEntry, allowedHostsSetting, type AllowedHosts } from '../settings/allowed-hosts';
import type { MountedModule } from './modules';
import { fromEnvironment, OptionsError, show, type OptionsEntry } from './option-checks';

export type { AllowedHosts } from '../settings/allowed-hosts';

/** The `allowedHosts` option, else `CA_ALLOWED_HOSTS` (lib/settings), else every host. */
export function resolveAllowedHosts(value: unknown, env: Record<string, string | undefined>, entry: OptionsEntry): AllowedHosts {
  if (value === undefined) return fromEnvironment(() => allowedHostsSetting(env), entry);
  if (!Array.isArray(value)) {
    throw new OptionsError(`option \`allowedHosts\` must be an array of host names such as ['ca.example.com'] (got ${show(value)})`, entry);
  }
  if (value.length === 0) {
    throw new OptionsError("option `allowedHosts` must name at least one host, or '*' for every host (got an empty list)", entry);
  }
  const hosts = value.map((item: unknown) => {
    const host = typeof item === 'string' ? allowedHostEntry(item) : null;
    if (host === null) throw new OptionsError(`option \`allowedHosts\`: ${show(item)} is not ${ALLOWED_HOST_FORMS}`, entry);
    return host;
  });
  return hosts.includes('*') ? null : hosts;
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
