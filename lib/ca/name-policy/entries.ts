/**
 * The entries of a name policy's allow and deny lists as an operator sets them — a CA's ACME policy
 * (docs/guides/acme.md; `AcmeCaPolicy`), an enrolment endpoint's `names` (docs/guides/est.md, docs/guides/scep.md) — checked
 * and put in the one form covers.ts matches, so that a typo is an error when it is typed rather than
 * a list that silently covers nothing.
 *
 * - a DNS suffix: dot-separated LDH labels (letters, digits, hyphen; RFC 1123 §2.1; IDNs as A-labels),
 *   lower-cased, without a trailing dot — it covers the name itself and every name under it, so a
 *   leading `*.` or `.` would only mislead and is refused;
 * - an IPv4 or IPv6 address, or a network in CIDR notation (RFC 4632 §3.1) with its host bits zero, in
 *   canonical text (RFC 5952 for IPv6).
 */
import { CaError } from '../errors';
import { canonicalIp } from '../../x509/ip-address';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * What covers.ts reads as an IP entry (digits and dots, or any colon): such an entry must be a
 * valid address or network, or it would match nothing.
 */
const IP_LIKE = /^[0-9./]+$|:/;

function canonicalEntry(raw: string, label: string): string {
  const text = raw.trim();
  if (IP_LIKE.test(text)) {
    const ip = canonicalIp(text);
    if (ip === null) {
      throw new CaError(
        'invalid',
        `${label} ${JSON.stringify(raw)}: not an IP address or network (CIDR with the host bits zero, e.g. 10.0.0.0/8 or 2001:db8::/32).`,
      );
    }
    return ip;
  }
  const name = text.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  // A last label of digits is never a host name (lib/acme/identifiers.ts refuses it), so it would match nothing.
  if (name.length === 0 || name.length > 253 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1])) {
    throw new CaError(
      'invalid',
      `${label} ${JSON.stringify(raw)}: not a DNS suffix (dot-separated labels of letters, digits and hyphens, e.g. example.internal) ` +
        'nor an IP address or network.',
    );
  }
  return name;
}

/** The entries, checked and canonical, without repeats; the first bad one is a CaError naming `label`. */
export function policyNames(entries: readonly string[], label: string): string[] {
  return [...new Set(entries.map((entry) => canonicalEntry(entry, label)))];
}
