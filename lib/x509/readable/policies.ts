/**
 * Policy extensions: certificate policies (RFC 5280 §4.2.1.4), policy constraints (§4.2.1.11) and
 * inhibit anyPolicy (§4.2.1.14), as lines of text.
 */
import type { PolicyInformation, PolicyQualifier } from '../extensions/certificate-policies';
import type { PolicyConstraintsValue } from '../extensions/policy-constraints';
import { oidWithName, orNone } from './text';

/**
 * Names of well-known policy identifiers: anyPolicy (RFC 5280 §4.2.1.4) and the CA/Browser Forum's
 * reserved identifiers, which most publicly trusted certificates carry.
 */
export const POLICY_NAMES: Readonly<Record<string, string>> = {
  '2.5.29.32.0': 'anyPolicy',
  '2.23.140.1.1': 'extended validation',
  '2.23.140.1.2.1': 'domain validated',
  '2.23.140.1.2.2': 'organization validated',
  '2.23.140.1.2.3': 'individual validated',
};

/** A CPS pointer is its URI; a user notice its text and notice reference (RFC 5280 §4.2.1.4). */
function qualifierLines(q: PolicyQualifier): string[] {
  if (typeof q === 'string') return [`CPS: ${q}`];
  const lines: string[] = [];
  if (q.explicit_text !== null) lines.push(`User notice: ${q.explicit_text}`);
  if (q.notice_reference !== null) {
    const { organization, notice_numbers: numbers } = q.notice_reference;
    lines.push(`Notice reference: ${organization ?? '(no organization)'}, notice numbers ${numbers.join(', ') || '(none)'}`);
  }
  return lines.length ? lines : ['User notice: (empty)'];
}

/** `Policy: 2.5.29.32.0 (anyPolicy)`, then its qualifiers, policy after policy. */
export function certificatePoliciesLines(policies: readonly PolicyInformation[]): string[] {
  return orNone(
    policies.flatMap((p) => [
      `Policy: ${oidWithName(p.policy_identifier, POLICY_NAMES)}`,
      ...(p.policy_qualifiers ?? []).flatMap(qualifierLines),
    ]),
  );
}

/** The two skip counts of RFC 5280 §4.2.1.11 (certificates that may follow before the rule applies), where present. */
export function policyConstraintsLines(value: PolicyConstraintsValue): string[] {
  const lines: string[] = [];
  if (value.require_explicit_policy !== null) lines.push(`Require explicit policy: ${value.require_explicit_policy}`);
  if (value.inhibit_policy_mapping !== null) lines.push(`Inhibit policy mapping: ${value.inhibit_policy_mapping}`);
  return orNone(lines);
}

/** SkipCerts of RFC 5280 §4.2.1.14: how many certificates may follow before anyPolicy stops matching. */
export function inhibitAnyPolicyLines(skipCerts: number): string[] {
  return [`Skip certificates: ${skipCerts}`];
}
