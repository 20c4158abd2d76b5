/**
 * A request the CA's issuing policy refuses (docs/guides/issuance-policy.md): a validation error in the
 * REST API's form (HTTP 422 with `loc` relative to the sign request), which names the rule so that
 * every other way in answers in its own form — ACME's problem type, EST's 400, SCEP's failInfo, the
 * admin form's message, the command line's error.
 */
import { X509Error, type ValidationIssue } from '../../x509/errors';

/** The rules, one name each. */
export type PolicyRule = 'key' | 'ca-key' | 'name-constraints' | 'ca-names' | 'subject-text' | 'unusable-name' | 'validity';

export interface PolicyIssue extends ValidationIssue {
  rule: PolicyRule;
}

export class IssuancePolicyError extends X509Error {
  /** The rule of the first issue: what a way in with one error code per answer reports. */
  readonly rule: PolicyRule;
  readonly policyIssues: readonly PolicyIssue[];

  constructor(issues: readonly PolicyIssue[]) {
    super(
      'validation',
      issues.map((i) => i.msg).join('; '),
      issues.map(({ type, loc, msg }) => ({ type, loc, msg })),
    );
    this.name = 'IssuancePolicyError';
    this.rule = issues[0].rule;
    this.policyIssues = issues;
  }
}

/** One refused value at `loc`. */
export function policyIssue(rule: PolicyRule, msg: string, loc: (string | number)[]): PolicyIssue {
  return { rule, msg, loc, type: 'value_error' };
}

/** Whether `e` is a refusal of the policy (of any rule, or of one of `rules`). */
export function isPolicyRefusal(e: unknown, ...rules: PolicyRule[]): e is IssuancePolicyError {
  return e instanceof IssuancePolicyError && (rules.length === 0 || rules.includes(e.rule));
}
