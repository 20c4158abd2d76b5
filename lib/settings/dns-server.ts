/**
 * The form of a DNS server the ACME challenge validator asks (`CA_ACME_DNS_SERVERS`, and its
 * `dnsServers` setting): an IP address with an optional port, IPv6 in brackets when a port follows.
 * One rule for the variable (read here) and for the setting a host passes (checked by the validator,
 * adapters/acme-validation/settings.ts).
 */
import * as net from 'net';

/** A TCP/UDP port number, 1–65535. */
export function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/**
 * A DNS server entry in the form `dns.Resolver.setServers` takes (`1.2.3.4`, `1.2.3.4:5353`, `::1`,
 * `[::1]:5353`), or null. Only addresses: the resolver cannot look up its own servers' names.
 */
export function parseDnsServer(entry: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) {
    const [, address, port] = bracketed;
    if (!net.isIPv6(address) || (port !== undefined && !isPort(Number(port)))) return null;
    return port === undefined ? `[${address}]:53` : `[${address}]:${Number(port)}`;
  }
  if (net.isIPv6(entry)) return `[${entry}]:53`;
  const v4 = /^([0-9.]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!v4 || !net.isIPv4(v4[1]) || (v4[2] !== undefined && !isPort(Number(v4[2])))) return null;
  return `${v4[1]}:${v4[2] === undefined ? 53 : Number(v4[2])}`;
}
