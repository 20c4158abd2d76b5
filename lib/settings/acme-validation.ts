/**
 * The settings of the package's ACME challenge validator (docs/guides/acme.md): `CA_ACME_DNS_SERVERS`
 * (comma-separated `host:port`, the servers every lookup of a validation asks), `CA_ACME_HTTP01_PORT`
 * and `CA_ACME_TLS_ALPN01_PORT` (where http-01 and tls-alpn-01 connect). Read here and handed to the
 * validator (adapters/acme-validation), which reads no environment itself.
 */
import { parseDnsServer, isPort } from './dns-server';
import { SettingsError, shown } from './errors';
import type { Env } from './switch';

/** What the environment sets; a variable unset or empty is left out (the validator's default applies). */
export interface AcmeValidationSettings {
  dnsServers?: string[];
  http01Port?: number;
  tlsAlpn01Port?: number;
}

function portSetting(env: Env, variable: string): number | undefined {
  const text = env[variable]?.trim();
  if (!text) return undefined;
  const value = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!isPort(value)) throw new SettingsError(variable, `: expected a port number (1-65535), got ${shown(text)}`);
  return value;
}

/** The three variables of `env`, checked; a bad value is a `SettingsError` naming its variable. */
export function acmeValidationSettings(env: Env): AcmeValidationSettings {
  const out: AcmeValidationSettings = {};
  const servers = env.CA_ACME_DNS_SERVERS?.trim();
  if (servers) {
    out.dnsServers = servers.split(',').map((entry) => {
      const parsed = parseDnsServer(entry.trim());
      if (!parsed) {
        throw new SettingsError(
          'CA_ACME_DNS_SERVERS',
          `: invalid entry ${shown(entry.trim())} (expected comma-separated IP addresses with an optional :port, IPv6 as [::1]:53)`,
        );
      }
      return parsed;
    });
  }
  const http01Port = portSetting(env, 'CA_ACME_HTTP01_PORT');
  const tlsAlpn01Port = portSetting(env, 'CA_ACME_TLS_ALPN01_PORT');
  if (http01Port !== undefined) out.http01Port = http01Port;
  if (tlsAlpn01Port !== undefined) out.tlsAlpn01Port = tlsAlpn01Port;
  return out;
}
