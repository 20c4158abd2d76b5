/**
 * Names no certificate of this CA should carry, whichever way they come in (ACME new-order, REST and
 * CLI sign): one rule for all (docs/operations/hostile-clients-and-outages.md "Hostile input"). Pure checks; each answers why a name is
 * refused, or null.
 *
 * - IP addresses that name no host: the unspecified address (RFC 1122 §3.2.1.3 "this host", RFC 4291
 *   §2.5.2), IPv4 limited broadcast (RFC 919), multicast (RFC 5771, RFC 4291 §2.7), and IPv4-mapped
 *   IPv6 (RFC 4291 §2.5.5.2), which is an IPv4 address in disguise: it would pass an IPv6 policy
 *   entry, and validating `0.0.0.0` or `::` connects to the CA's own machine. Private and loopback
 *   networks are not refused here: a CA's own name policy decides about those.
 * - DNS names with a trailing dot (RFC 5280 §4.2.1.6: the preferred name syntax has none) and labels
 *   that start `xn--` but are not A-labels (RFC 5891 §5.4: an A-label decodes to a valid U-label that
 *   encodes back to it).
 */
import { asciiLabelProblem } from './idna';
import { encodeIpBytes } from './ip-address';

function ipv4Problem(b: Buffer): string | null {
  if (b[0] === 0) return 'an unspecified ("this network") address (0.0.0.0/8)';
  if (b.every((x) => x === 255)) return 'the broadcast address';
  if (b[0] >= 224 && b[0] <= 239) return 'a multicast address (224.0.0.0/4)';
  return null;
}

/** Why the IP address (any text form) names no host a certificate can be for, or null. */
export function ipAddressProblem(address: string): string | null {
  let bytes: Buffer;
  try {
    bytes = encodeIpBytes(address);
  } catch {
    return 'not an IP address';
  }
  if (bytes.length === 4) return ipv4Problem(bytes);
  if (bytes.every((x) => x === 0)) return 'the unspecified address (::)';
  if (bytes[0] === 0xff) return 'a multicast address (ff00::/8)';
  if (bytes.subarray(0, 10).every((x) => x === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return 'an IPv4-mapped address (::ffff:0:0/96): name the IPv4 address itself';
  }
  return null;
}

/**
 * Why the DNS name (ASCII, a wildcard's `*.` allowed) cannot be certified, or null. Only what the
 * syntax checks of the callers do not already cover: the trailing dot and the A-labels.
 */
export function dnsNameProblem(name: string): string | null {
  if (name.endsWith('.')) return 'a trailing dot (a name in a certificate is written without it)';
  for (const label of name.split('.')) {
    if (!/^xn--/i.test(label)) continue;
    const problem = asciiLabelProblem(label);
    if (problem !== null) return `${JSON.stringify(label)} is not a valid A-label: ${problem}`;
  }
  return null;
}
