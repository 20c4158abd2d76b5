/**
 * A CA's issuance policy as an operator sets it (`ca-admin edit_ca --issuance-*`, the admin
 * interface's CA form) and as both show it (docs/guides/issuance-policy.md): the settings checked and made
 * canonical before anything is written — a key kind outside the built-in set or a name entry that
 * covers nothing is an error naming the option — and a policy that narrows nothing is null, the
 * built-in policy, as for a CA that was never given one.
 */
import type { CaIssuancePolicy } from '../../ports';
import { policyNames } from '../name-policy/entries';
import { describeKeyKinds, keyKinds } from './ca-keys';
import { ACCEPTED_KEYS } from './keys';

/** A change to a CA's policy: each part given replaces the stored one; `keys: null` is the built-in set. */
export interface CaIssuancePolicyPatch {
  keys?: readonly string[] | null;
  allow?: readonly string[];
  deny?: readonly string[];
}

/** The option names the errors name, per part. */
export interface PolicyLabels {
  keys: string;
  allow: string;
  deny: string;
}

const NONE: CaIssuancePolicy = { keys: null, allow: [], deny: [] };

/**
 * `current` (null: the built-in policy) with `patch` applied, each part checked and canonical; null
 * when the result narrows nothing. Throws CaError('invalid') naming the option of the first bad entry.
 */
export function patchedIssuancePolicy(
  current: CaIssuancePolicy | null,
  patch: CaIssuancePolicyPatch,
  labels: PolicyLabels,
): CaIssuancePolicy | null {
  const base = current ?? NONE;
  const keys = patch.keys === undefined ? base.keys : patch.keys === null ? null : keyKinds(patch.keys, labels.keys);
  const allow = patch.allow === undefined ? base.allow : policyNames(patch.allow, labels.allow);
  const deny = patch.deny === undefined ? base.deny : policyNames(patch.deny, labels.deny);
  return keys === null && allow.length === 0 && deny.length === 0 ? null : { keys, allow, deny };
}

/** Whether two policies (null: the built-in one) are the same. */
export function sameIssuancePolicy(a: CaIssuancePolicy | null, b: CaIssuancePolicy | null): boolean {
  return JSON.stringify(a ?? NONE) === JSON.stringify(b ?? NONE);
}

/** The policy in words, one line per part, for `view_ca` and the admin interface's CA page. */
export function issuancePolicyInWords(policy: CaIssuancePolicy | null): { keys: string; allow: string; deny: string } {
  return {
    keys: policy?.keys ? describeKeyKinds(policy.keys) : `${ACCEPTED_KEYS} (defaults)`,
    allow: policy?.allow.length ? policy.allow.join(', ') : 'any name (defaults)',
    deny: policy?.deny.length ? policy.deny.join(', ') : 'none (defaults)',
  };
}
