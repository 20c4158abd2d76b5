/**
 * The CA's issuing policy (docs/guides/issuance-policy.md, lib/ca/policy/) in ACME's words (RFC 8555 §6.7):
 * a key the CA does not certify is `badPublicKey`, a name it may not certify (name constraints, the
 * CA's own names allowed and denied) `rejectedIdentifier`, a
 * subject it may not write `badCSR`, a validity it cannot cover `malformed`. At new-order the names and
 * the requested validity are checked before the account proves anything; at finalize the CSR's key.
 */
import { requestedNameIssues } from '../../ca/policy/check';
import type { PolicyContext } from '../../ca/policy/context';
import { IssuancePolicyError, isPolicyRefusal, policyIssue } from '../../ca/policy/refusal';
import { outlivesCa, outlivesCaMessage } from '../../ca/signing-ca';
import type { AcmeIdentifier, CaRecord } from '../../ports';
import { type AcmeProblem, badCsr, badPublicKey, malformed, rejectedIdentifier } from '../problems';

/** The problem a refusal of the policy is in ACME; anything else unchanged. */
export function asAcmeProblem(e: unknown): unknown {
  if (!isPolicyRefusal(e)) return e;
  switch (e.rule) {
    case 'key':
    case 'ca-key':
      return badPublicKey(e.message);
    case 'name-constraints':
    case 'ca-names':
    case 'unusable-name':
      return rejectedIdentifier(e.message);
    case 'subject-text':
      return badCsr(e.message);
    case 'validity':
      return malformed(e.message);
  }
}

/** New-order: the identifiers inside the CA's name constraints and its own name lists, a requested end the CA covers. */
export function checkOrderAgainstCaPolicy(
  ca: CaRecord,
  context: PolicyContext,
  identifiers: readonly AcmeIdentifier[],
  notAfter: Date | null,
  now: Date,
): void {
  const names = identifiers.map((id, i) => ({ name: { type: id.type === 'dns' ? 'DNS' : 'IP', value: id.value } as const, loc: [i] }));
  const issues = requestedNameIssues(names, context);
  if (notAfter && outlivesCa(ca, notAfter)) issues.push(policyIssue('validity', outlivesCaMessage(ca, now), ['notAfter']));
  if (issues.length > 0) throw asAcmeProblem(new IssuancePolicyError(issues)) as AcmeProblem;
}
