/**
 * The names one CA certifies (docs/guides/issuance-policy.md; `CaIssuancePolicy.allow`/`deny`), at every way
 * in and for every requested name: each subjectAltName, and a common name that is a host name or IP
 * address (subject.ts, `commonNameAsName`). The entries and their covering are those of a CA's ACME
 * policy and of an enrolment endpoint's `names` (lib/ca/name-policy): a DNS suffix covers the name
 * itself and every name under it (`corp.example` covers `corp.example`, `www.corp.example` and
 * `*.corp.example`), an IP network in CIDR form its addresses (a bare address is a /32 or /128).
 *
 * A name under a denied entry is refused; with allowed entries, a DNS name or IP address must be under
 * one, and a name of another type (e-mail, URI, directory name...) is refused, since the lists cannot
 * allow it. Each refusal names the entry (denied) or the allowed entries, with the rule `ca-names`.
 */
import { canonicalIp } from '../../x509/ip-address';
import type { GeneralName } from '../../x509/types';
import { coveringEntry, type PolicyName } from '../name-policy/covers';
import type { CaIssuancePolicy } from '../../ports';
import { policyIssue, type PolicyIssue } from './refusal';

/** The issuing CA's own policy, with its name for the messages. */
export interface OwnPolicy {
  ca: string;
  policy: CaIssuancePolicy;
}

/** The allowed entries shown in a refusal: a few, not a list of hundreds. */
const SHOWN_ENTRIES = 5;

function asPolicyName(name: GeneralName): PolicyName | null {
  if (name.type === 'DNS') return { type: 'dns', value: String(name.value).toLowerCase().replace(/\.$/, '') };
  if (name.type === 'IP') {
    const value = canonicalIp(String(name.value));
    return value === null ? null : { type: 'ip', value };
  }
  return null;
}

function shown(name: GeneralName): string {
  return typeof name.value === 'string' ? `${name.type}:${name.value}` : name.type;
}

function allowedInWords(allow: readonly string[]): string {
  const listed = allow.slice(0, SHOWN_ENTRIES).join(', ');
  return allow.length > SHOWN_ENTRIES ? `${listed} and ${allow.length - SHOWN_ENTRIES} more` : listed;
}

/** The refusal of `name` (at `loc` of the sign request) by the CA's own name lists, or null. */
export function caNameIssue(name: GeneralName, loc: (string | number)[], own: OwnPolicy | null): PolicyIssue | null {
  if (own === null) return null;
  const { allow, deny } = own.policy;
  if (allow.length === 0 && deny.length === 0) return null;
  const whose = `the issuance policy of certificate authority ${own.ca}`;
  const asName = asPolicyName(name);
  const denied = asName && coveringEntry(deny, asName);
  if (denied) return policyIssue('ca-names', `${shown(name)}: denied by ${whose} (deny ${denied}).`, loc);
  if (allow.length === 0) return null;
  if (asName === null) {
    return policyIssue('ca-names', `${shown(name)}: not allowed by ${whose}, which allows DNS names and IP addresses only.`, loc);
  }
  if (coveringEntry(allow, asName) === undefined) {
    return policyIssue('ca-names', `${shown(name)}: not among the names ${whose} allows (allow ${allowedInWords(allow)}).`, loc);
  }
  return null;
}
