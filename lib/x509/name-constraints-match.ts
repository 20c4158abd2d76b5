/**
 * Whether a name lies inside a CA certificate's nameConstraints (RFC 5280 §4.2.1.10): pure matching
 * of one GeneralName against the permitted and excluded subtrees, as a relying party checks it when it
 * validates the path. A CA that signs a name its own constraints exclude issues a certificate that
 * fails validation (`openssl verify`: "excluded subtree violation"), so the issuing policy refuses it
 * first (docs/guides/issuance-policy.md).
 *
 * - dNSName: a constraint covers the name itself and every name made by adding labels to its left
 *   (`example.com` covers `www.example.com`); a constraint with a leading period covers only names
 *   below it. An empty constraint covers every DNS name. Case does not matter.
 * - rfc822Name: a mailbox (`user@host`) covers that mailbox, a host covers mailboxes at that host, a
 *   leading period a domain's hosts.
 * - uniformResourceIdentifier: the constraint applies to the host part, as for DNS names but with no
 *   match of the bare domain when the constraint has a leading period.
 * - iPAddress: address and mask (RFC 5280: 8 or 32 octets); the name lies inside when its masked bits
 *   equal the constraint's.
 * Other name types (directoryName, otherName, registeredID) are not matched here: a constraint of such
 * a type is left to the relying party, and a name of such a type is not checked.
 */
import { ipInNetwork } from './ip-address';
import type { GeneralName } from './types';

/** What nameConstraints says: lists of subtree bases (the API value of the extension). */
export interface NameConstraintLists {
  permitted_subtrees: readonly GeneralName[] | null;
  excluded_subtrees: readonly GeneralName[] | null;
}

/** A name type this matcher understands, and so checks. */
type MatchedType = 'DNS' | 'email' | 'URI' | 'IP';

const MATCHED: ReadonlySet<string> = new Set<MatchedType>(['DNS', 'email', 'URI', 'IP']);

function dnsWithin(base: string, name: string): boolean {
  const b = base.toLowerCase();
  const n = name.toLowerCase().replace(/^\*\./, 'wildcard.');
  if (b === '') return true;
  if (b.startsWith('.')) return n.endsWith(b);
  return n === b || n.endsWith(`.${b}`);
}

function emailWithin(base: string, name: string): boolean {
  const at = name.lastIndexOf('@');
  if (at < 0) return false;
  const host = name.slice(at + 1).toLowerCase();
  if (base.includes('@')) {
    // RFC 5280: the local part compares exactly, the host without regard to case.
    const baseAt = base.lastIndexOf('@');
    return base.slice(0, baseAt) === name.slice(0, at) && base.slice(baseAt + 1).toLowerCase() === host;
  }
  const b = base.toLowerCase();
  return b.startsWith('.') ? host.endsWith(b) : host === b;
}

function uriHost(uri: string): string | null {
  try {
    const host = new URL(uri).hostname;
    return host === '' ? null : host.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

function uriWithin(base: string, name: string): boolean {
  const host = uriHost(name);
  if (host === null) return false;
  const b = base.toLowerCase();
  return b.startsWith('.') ? host.toLowerCase().endsWith(b) : host.toLowerCase() === b;
}

function within(base: GeneralName, name: GeneralName & { type: MatchedType }): boolean {
  if (base.type !== name.type || typeof base.value !== 'string') return false;
  switch (name.type) {
    case 'DNS':
      return dnsWithin(base.value, name.value);
    case 'email':
      return emailWithin(base.value, name.value);
    case 'URI':
      return uriWithin(base.value, name.value);
    case 'IP':
      return ipInNetwork(base.value, name.value);
  }
}

function isMatched(name: GeneralName): name is GeneralName & { type: MatchedType } {
  return MATCHED.has(name.type);
}

/**
 * Why `constraints` refuse `name` — it lies in an excluded subtree, or the permitted subtrees name its
 * type and none holds it — or null when they allow it (or cannot judge a name of its type).
 */
export function nameConstraintViolation(constraints: NameConstraintLists, name: GeneralName): 'excluded' | 'not-permitted' | null {
  if (!isMatched(name)) return null;
  if ((constraints.excluded_subtrees ?? []).some((base) => within(base, name))) return 'excluded';
  const permitted = (constraints.permitted_subtrees ?? []).filter((base) => base.type === name.type);
  if (permitted.length > 0 && !permitted.some((base) => within(base, name))) return 'not-permitted';
  return null;
}
