/**
 * Which names a name policy covers (docs/guides/acme.md; docs/guides/est.md, docs/guides/scep.md for an enrolment endpoint's
 * `names`): DNS suffixes — an entry covers the name itself and every name under it, a wildcard name
 * by its base name — and IP networks in CIDR form (a bare address is a /32 or /128). Denied wins over
 * allowed; with an allow list, a name must be covered by it; an empty allow list allows every name
 * not denied. The entries are those of entries.ts (`policyNames`).
 */
import { ipInNetwork } from '../../x509/ip-address';

/** A name as a policy sees it: a DNS name (lower case) or an IP address. */
export interface PolicyName {
  type: 'dns' | 'ip';
  value: string;
}

/** An allow and a deny list of canonical entries (entries.ts). */
export interface NamePolicyLists {
  allow: readonly string[];
  deny: readonly string[];
}

function coversName(entry: string, name: string): boolean {
  const suffix = entry
    .toLowerCase()
    .replace(/^\*?\./, '')
    .replace(/\.$/, '');
  return name === suffix || name.endsWith(`.${suffix}`);
}

function coversIp(entry: string, ip: string): boolean {
  return ipInNetwork(entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`, ip);
}

function isIpEntry(entry: string): boolean {
  return /^[0-9.]+(\/\d+)?$/.test(entry) || entry.includes(':');
}

/** The first of `entries` that covers `name`, or undefined. */
export function coveringEntry(entries: readonly string[], name: PolicyName): string | undefined {
  return entries.find((entry) =>
    name.type === 'ip' ? isIpEntry(entry) && coversIp(entry, name.value) : !isIpEntry(entry) && coversName(entry, name.value),
  );
}

/** Whether one of `entries` covers `name`. */
export function covers(entries: readonly string[], name: PolicyName): boolean {
  return coveringEntry(entries, name) !== undefined;
}

/** Why `policy` refuses `name` — denied, or not among the allowed — or null when it allows it. */
export function refusal(policy: NamePolicyLists, name: PolicyName): 'denied' | 'not-allowed' | null {
  if (covers(policy.deny, name)) return 'denied';
  if (policy.allow.length > 0 && !covers(policy.allow, name)) return 'not-allowed';
  return null;
}
