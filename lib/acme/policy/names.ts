/**
 * The names a CA issues for through ACME (docs/guides/acme.md; `AcmeCaPolicy`): DNS suffixes — an entry
 * covers the name itself and every name under it, and a wildcard order by its base name — and IP
 * networks in CIDR form (a bare address is a /32 or /128). Denied wins over allowed; with an allow list,
 * a name must be covered by it. Refused identifiers are one `rejectedIdentifier` with a subproblem each
 * (RFC 8555 §6.7.1), before the order exists. The covering is the shared name policy's
 * (lib/ca/name-policy/covers.ts), which enrolment endpoints use too.
 */
import { refusal } from '../../ca/name-policy/covers';
import type { AcmeCaPolicy, AcmeIdentifier } from '../../ports';
import { rejectedIdentifier, type AcmeSubproblem } from '../problems';

/** Throws `rejectedIdentifier` naming each identifier the policy refuses. */
export function checkNamePolicy(policy: AcmeCaPolicy, identifiers: readonly AcmeIdentifier[]): void {
  const refused: AcmeSubproblem[] = [];
  for (const id of identifiers) {
    const why = refusal(policy, id);
    if (why === 'denied') refused.push({ type: 'rejectedIdentifier', detail: `${id.value} is denied by the CA's policy.`, identifier: id });
    else if (why === 'not-allowed') {
      refused.push({ type: 'rejectedIdentifier', detail: `${id.value} is not among the names the CA issues for.`, identifier: id });
    }
  }
  if (refused.length > 0) {
    throw rejectedIdentifier(`The CA does not issue for ${refused.map((r) => r.identifier?.value).join(', ')}.`, refused);
  }
}
