/**
 * Where a validation connects: the addresses of a host and the order they are tried in. An IP
 * identifier is its own address (RFC 8738 §4: the DNS step is skipped); a name is resolved through
 * the validator's resolver. Addresses are tried in order, a few at most, and only a failure to
 * connect moves on to the next: a wrong answer from one address is the answer.
 */
import * as net from 'net';
import { encodeIpBytes } from '../../lib/x509/ip-address';
import type { Deadline } from './deadline';
import { failure, hostPort, isFailure, type ValidationFailure } from './outcome';
import type { NameLookup } from './resolver';

/** Bounded, so that a name with dozens of dead addresses cannot hold a validation. */
export const MAX_ADDRESSES = 4;

/** What one attempt on one address gives when it never got a connection. */
export interface NotConnected {
  notConnected: string;
}

/** The addresses for `host` (an IP literal, or a name to resolve), at most `MAX_ADDRESSES`. */
export async function addressesOf(host: string, lookup: NameLookup): Promise<string[] | ValidationFailure> {
  if (net.isIP(host)) return [host];
  const found = await lookup.addresses(host);
  return isFailure(found) ? found : found.slice(0, MAX_ADDRESSES);
}

/**
 * `attempt` on each address in turn until one connects; its result, or a `connection` problem that
 * names every address tried. Each attempt may spend its share of the time left on connecting, so a
 * silent first address leaves time for the others.
 */
export async function firstConnected<R extends object>(
  addresses: string[],
  port: number,
  deadline: Deadline,
  attempt: (address: string, connectMs: number) => Promise<R | NotConnected>,
  doing: string,
): Promise<R | ValidationFailure> {
  const failures: string[] = [];
  for (let i = 0; i < addresses.length; i++) {
    const connectMs = Math.floor(deadline.remaining() / (addresses.length - i));
    const result = connectMs > 0 ? await attempt(addresses[i], connectMs) : { notConnected: 'timeout' };
    if (!('notConnected' in result)) return result;
    failures.push(`${hostPort(addresses[i], port)}: ${result.notConnected}`);
  }
  return failure('connection', `${failures.join('; ')} while ${doing}`, true);
}

/** The host part of a URL for an identifier: an IPv6 address in brackets (RFC 3986 §3.2.2, RFC 8738 §5). */
export function urlHost(identifierValue: string): string {
  return net.isIPv6(identifierValue) ? `[${identifierValue}]` : identifierValue;
}

/**
 * The reverse-mapping name of an address, which tls-alpn-01 sends as SNI for an IP identifier
 * (RFC 8738 §6: RFC 6066 allows no address there): `4.3.2.1.in-addr.arpa`, or the 32 nibbles of an
 * IPv6 address reversed under `ip6.arpa`.
 */
export function reverseDnsName(address: string): string {
  const bytes = encodeIpBytes(address);
  if (bytes.length === 4) return `${[...bytes].reverse().join('.')}.in-addr.arpa`;
  const nibbles = [...bytes.toString('hex')].reverse();
  return `${nibbles.join('.')}.ip6.arpa`;
}
