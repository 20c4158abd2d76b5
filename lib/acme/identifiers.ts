/**
 * The identifiers of a new order (RFC 8555 §7.1.3, §9.7.7; RFC 8738 for IP addresses), checked and
 * put in one canonical form — the original stores them as sent, unchecked (docs/guides/acme.md,
 * differences) — and the challenges each may be proven with:
 *
 * - `dns`: a host name in ASCII (IDNs as valid A-labels), lower-cased, without a trailing dot (one is
 *   refused, not dropped); a wildcard `*.` only as the whole leftmost label, proven by dns-01 alone
 *   (RFC 8555 §7.1.3, §8.4);
 * - `ip`: an IPv4 or IPv6 address in canonical text, one that names a host (not unspecified,
 *   broadcast, multicast or IPv4-mapped); http-01 and tls-alpn-01, never dns-01 (RFC 8738 §7).
 *
 * What no certificate may name is one rule for every way in (lib/x509/issuable-names.ts).
 */
import type { AcmeChallengeType, AcmeIdentifier } from '../ports';
import { canonicalIp } from '../x509/ip-address';
import { dnsNameProblem, ipAddressProblem } from '../x509/issuable-names';
import { isJsonObject } from './encoding';
import { malformed, quoted, rejectedIdentifier, unsupportedIdentifier } from './problems';

/** Identifiers per order: enough for any real certificate, few enough to bound the work of one request. */
export const MAX_IDENTIFIERS = 100;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export interface OrderIdentifier {
  /** As the order shows it (a wildcard with its `*.`). */
  requested: AcmeIdentifier;
  /** What is authorized: the name without `*.`. */
  authorized: AcmeIdentifier;
  wildcard: boolean;
  challenges: AcmeChallengeType[];
}

function dnsIdentifier(raw: string): OrderIdentifier {
  const name = raw.toLowerCase();
  const problem = dnsNameProblem(name);
  if (problem !== null) throw rejectedIdentifier(`${quoted(raw)} cannot be in a certificate: ${problem}.`);
  const wildcard = name.startsWith('*.');
  const base = wildcard ? name.slice(2) : name;
  const labels = base.split('.');
  if (base.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1])) {
    throw rejectedIdentifier(`${quoted(raw)} is not a valid DNS name for a certificate (RFC 8555 §7.1.4).`);
  }
  return {
    requested: { type: 'dns', value: name },
    authorized: { type: 'dns', value: base },
    wildcard,
    challenges: wildcard ? ['dns-01'] : ['http-01', 'dns-01', 'tls-alpn-01'],
  };
}

function ipIdentifier(raw: string): OrderIdentifier {
  const ip = raw.includes('/') ? null : canonicalIp(raw);
  if (ip === null) throw malformed(`${quoted(raw)} is not an IP address (RFC 8738 §3).`);
  const problem = ipAddressProblem(ip);
  if (problem !== null) throw rejectedIdentifier(`${quoted(raw)} cannot be in a certificate: it is ${problem}.`);
  const identifier: AcmeIdentifier = { type: 'ip', value: ip };
  return { requested: identifier, authorized: identifier, wildcard: false, challenges: ['http-01', 'tls-alpn-01'] };
}

/** The `identifiers` of a newOrder payload, checked, canonical and without duplicates. */
export function parseOrderIdentifiers(value: unknown): OrderIdentifier[] {
  if (!Array.isArray(value) || value.length === 0) throw malformed('The order must name at least one identifier.');
  if (value.length > MAX_IDENTIFIERS) throw rejectedIdentifier(`An order may name at most ${MAX_IDENTIFIERS} identifiers.`);
  const seen = new Set<string>();
  return value.map((item) => {
    if (!isJsonObject(item) || typeof item.type !== 'string' || typeof item.value !== 'string') {
      throw malformed('Each identifier must be an object with a string "type" and "value".');
    }
    const parsed = item.type === 'dns' ? dnsIdentifier(item.value) : item.type === 'ip' ? ipIdentifier(item.value) : unsupported(item.type);
    const key = `${parsed.requested.type}:${parsed.requested.value}`;
    if (seen.has(key)) throw malformed(`The identifier ${quoted(parsed.requested.value)} is named twice.`);
    seen.add(key);
    return parsed;
  });
}

function unsupported(type: string): never {
  throw unsupportedIdentifier(`Identifiers of type ${quoted(type)} are not supported: only "dns" and "ip".`);
}
