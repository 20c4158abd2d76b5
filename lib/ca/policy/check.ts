/**
 * The CA's issuing policy (docs/guides/issuance-policy.md), one function for every way in: REST sign and
 * resign, ACME finalize, EST and SCEP enrolment, the admin interface and `ca-admin`. A way in
 * authenticates its requester and says what it asks for; this decides, with the same rule and the
 * same words whatever the door, whether the CA may certify it:
 *
 * - the public key is one the CA certifies (keys.ts, narrowed by the CA's own policy: ca-keys.ts), and
 *   not the key of any CA in the store;
 * - every name — each subjectAltName, and a common name that is a host name or address — lies inside
 *   the nameConstraints of the issuing CA and of every CA above it (RFC 5280 §4.2.1.10), and is one
 *   the CA's own policy allows and does not deny (ca-names.ts);
 * - the subject carries no control character, and a common name that is a name is a usable one
 *   (subject.ts).
 * The validity rule is applied where the validity is fixed (lib/ca/issuance/prepare.ts, `outlivesCaRefusal`).
 */
import type { PublicKeyInfo } from '../../x509/public-key';
import { nameConstraintViolation } from '../../x509/name-constraints-match';
import type { GeneralName, Name } from '../../x509/types';
import type { PolicyContext } from './context';
import { describeKeyKinds, isKeyOfKinds } from './ca-keys';
import { caNameIssue } from './ca-names';
import { ACCEPTED_KEYS, describeKey, isAcceptedKey } from './keys';
import { IssuancePolicyError, policyIssue, type PolicyIssue } from './refusal';
import { commonNameAsName, subjectProblems } from './subject';
import { OID_COMMON_NAME } from '../../x509/oids';

/** What a request asks the CA to certify, with where each part sits in the sign request (for `loc`). */
export interface IssuanceSubject {
  subject: Name;
  /** The subjectAltName values, with their location in the request. */
  names: readonly { name: GeneralName; loc: (string | number)[] }[];
  publicKey: Pick<PublicKeyInfo, 'keyType' | 'keySize' | 'curve' | 'der'>;
}

function keyIssues(key: IssuanceSubject['publicKey'], context: PolicyContext): PolicyIssue[] {
  if (!isAcceptedKey(key)) {
    return [policyIssue('key', `The CSR's public key is not accepted: ${describeKey(key)} (accepted: ${ACCEPTED_KEYS}).`, ['csr'])];
  }
  const kinds = context.own?.policy.keys;
  if (context.own && kinds && !isKeyOfKinds(kinds, key)) {
    return [
      policyIssue(
        'key',
        `The CSR's public key is not accepted by the issuance policy of certificate authority ${context.own.ca}: ` +
          `${describeKey(key)} (accepted: ${describeKeyKinds(kinds)}).`,
        ['csr'],
      ),
    ];
  }
  const ca = context.caKeys.get(key.der.toString('base64'));
  if (ca !== undefined) {
    return [
      policyIssue('ca-key', `The CSR's public key is the key of certificate authority ${ca}: a CA's key is never certified.`, ['csr']),
    ];
  }
  return [];
}

function constraintIssues(name: GeneralName, loc: (string | number)[], context: PolicyContext): PolicyIssue[] {
  for (const { ca, constraints } of context.constraints) {
    const violation = nameConstraintViolation(constraints, name);
    if (violation === null) continue;
    const why = violation === 'excluded' ? 'in a subtree it excludes' : 'outside the subtrees it permits';
    return [
      policyIssue(
        'name-constraints',
        `${String(name.value)}: ${why}: refused by the name constraints of certificate authority ${ca}.`,
        loc,
      ),
    ];
  }
  return [];
}

/** The issues of one requested name: the name constraints of the chain, then the CA's own name lists. */
function nameIssues(name: GeneralName, loc: (string | number)[], context: PolicyContext): PolicyIssue[] {
  const constrained = constraintIssues(name, loc, context);
  if (constrained.length > 0) return constrained;
  const own = caNameIssue(name, loc, context.own);
  return own ? [own] : [];
}

/** The issues of names alone (an ACME order's identifiers, before any CSR): name constraints and the CA's own lists. */
export function requestedNameIssues(names: IssuanceSubject['names'], context: PolicyContext): PolicyIssue[] {
  return names.flatMap(({ name, loc }) => nameIssues(name, loc, context));
}

/** Every issue of `request` under the CA's policy, in request order; empty when the CA may certify it. */
export function issuancePolicyIssues(request: IssuanceSubject, context: PolicyContext): PolicyIssue[] {
  const issues: PolicyIssue[] = [...keyIssues(request.publicKey, context)];
  const subjectIssues = subjectProblems(request.subject);
  issues.push(...subjectIssues.map((p) => policyIssue(p.rule, p.message, ['subject', p.index])));
  request.subject.forEach((attribute, index) => {
    if (attribute.oid !== OID_COMMON_NAME || subjectIssues.some((p) => p.index === index)) return;
    const asName = commonNameAsName(attribute.value);
    if (asName) issues.push(...nameIssues(asName, ['subject', index], context));
  });
  issues.push(...requestedNameIssues(request.names, context));
  return issues;
}

/** Throws IssuancePolicyError unless the CA may certify `request`. */
export function checkIssuancePolicy(request: IssuanceSubject, context: PolicyContext): void {
  const issues = issuancePolicyIssues(request, context);
  if (issues.length > 0) throw new IssuancePolicyError(issues);
}
