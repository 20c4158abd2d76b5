/**
 * The validator's settings: where it asks DNS, which ports it connects to, and the bounds on every
 * validation (time, redirects, bytes). Checked once, when the validator is made, so that a mistake
 * shows at start-up and not as a failed challenge hours later. The validator reads no environment:
 * `CA_ACME_DNS_SERVERS` & co. are read by lib/settings (acme-validation.ts) and passed in.
 */
import { isPort, parseDnsServer } from '../../lib/settings/dns-server';

export interface ValidatorSettings {
  /**
   * DNS servers as `host:port` (`1.2.3.4:53`, `[::1]:53`; a bare address means port 53). Every lookup
   * of the validator goes there: the A/AAAA records of http-01 and tls-alpn-01 targets and the TXT
   * records of dns-01. Empty: the system's resolvers.
   */
  dnsServers: string[];
  /** Where http-01 connects (RFC 8555 §8.3 says 80; tests and test networks map it elsewhere). */
  http01Port: number;
  /** Where tls-alpn-01 connects (RFC 8737 §3 says 443). */
  tlsAlpn01Port: number;
  /** Time for one validation, lookups, connections and redirects included. */
  timeoutMs: number;
  /** Redirects http-01 follows before it gives up (RFC 8555 §8.3: the server SHOULD follow them). */
  maxRedirects: number;
  /** The most of an http-01 response body that is read; a longer body is a wrong answer. */
  maxBodyBytes: number;
}

export const DEFAULT_VALIDATOR_SETTINGS: Readonly<ValidatorSettings> = Object.freeze({
  dnsServers: [],
  http01Port: 80,
  tlsAlpn01Port: 443,
  timeoutMs: 10_000,
  maxRedirects: 10,
  // A key authorization is 43 + 1 + 43 characters; 8 KiB leaves room for any whitespace a server adds.
  maxBodyBytes: 8192,
});

/** Defaults filled in and every value checked; a bad value throws an Error naming the setting. */
export function completeSettings(partial: Partial<ValidatorSettings> = {}): ValidatorSettings {
  const s: ValidatorSettings = { ...DEFAULT_VALIDATOR_SETTINGS, ...stripUndefined(partial) };
  const problem = (name: keyof ValidatorSettings, what: string): Error => new Error(`challenge validator: ${name} ${what}`);
  if (!Array.isArray(s.dnsServers)) throw problem('dnsServers', 'must be an array of host:port strings');
  const dnsServers = s.dnsServers.map((entry) => {
    const parsed = typeof entry === 'string' ? parseDnsServer(entry) : null;
    if (!parsed)
      throw problem(
        'dnsServers',
        `has an invalid entry ${JSON.stringify(entry)} (expected an IP address with an optional :port, IPv6 as [::1]:53)`,
      );
    return parsed;
  });
  for (const name of ['http01Port', 'tlsAlpn01Port'] as const) {
    if (!isPort(s[name])) throw problem(name, `must be a port number (1-65535), not ${JSON.stringify(s[name])}`);
  }
  for (const name of ['timeoutMs', 'maxBodyBytes'] as const) {
    if (!Number.isSafeInteger(s[name]) || s[name] < 1) throw problem(name, `must be a positive integer, not ${JSON.stringify(s[name])}`);
  }
  if (!Number.isSafeInteger(s.maxRedirects) || s.maxRedirects < 0) {
    throw problem('maxRedirects', `must be an integer of at least 0, not ${JSON.stringify(s.maxRedirects)}`);
  }
  return { ...s, dnsServers };
}

/** `{ timeoutMs: undefined }` means "the default", as if the key were absent. */
function stripUndefined<T extends object>(partial: T): Partial<T> {
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) as Partial<T>;
}
