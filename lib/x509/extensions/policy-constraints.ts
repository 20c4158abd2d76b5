/**
 * PolicyConstraints (RFC 5280 §4.2.1.11) ⇄ `{"require_explicit_policy", "inhibit_policy_mapping"}`
 * (docs/COMPATIBILITY.md §2).
 *
 *   PolicyConstraints ::= SEQUENCE {
 *     requireExplicitPolicy [0] SkipCerts OPTIONAL,
 *     inhibitPolicyMapping  [1] SkipCerts OPTIONAL }      -- IMPLICIT tags (module default)
 */
import { context, contentBytes, contextTag, integerBytes, parseDer, readIntegerContent, readSequence, seq, toDer } from '../asn1';
import { invalid, parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { readSmallNonNegative } from '../api-integer';
import { nullable, parseModel, present, requireInt, requireObject } from '../json-input';

export interface PolicyConstraintsValue {
  require_explicit_policy: number | null;
  inhibit_policy_mapping: number | null;
}

export const policyConstraintsCodec: ExtensionCodec<PolicyConstraintsValue> = {
  type: 'policy_constraints',
  oid: EXTENSION_OIDS.policy_constraints,
  defaultCritical: true,
  requiredCritical: true,
  configurable: false,

  decode(der) {
    const value: PolicyConstraintsValue = { require_explicit_policy: null, inhibit_policy_mapping: null };
    let lastTag = -1;
    for (const node of readSequence(parseDer(der, 'PolicyConstraints'), 'PolicyConstraints')) {
      const tag = contextTag(node);
      if (tag <= lastTag || tag > 1) throw parseError('PolicyConstraints: unexpected element');
      lastTag = tag;
      const n = readSmallNonNegative(readIntegerContent(contentBytes(node, 'SkipCerts'), 'SkipCerts'), 'SkipCerts');
      if (tag === 0) value.require_explicit_policy = n;
      else value.inhibit_policy_mapping = n;
    }
    if (value.require_explicit_policy === null && value.inhibit_policy_mapping === null) {
      throw parseError('PolicyConstraints: empty');
    }
    return value;
  },

  encode(value) {
    const children = [];
    if (value.require_explicit_policy !== null) children.push(context(0, false, integerBytes(BigInt(value.require_explicit_policy))));
    if (value.inhibit_policy_mapping !== null) children.push(context(1, false, integerBytes(BigInt(value.inhibit_policy_mapping))));
    return toDer(seq(children));
  },

  parse(input) {
    // Both keys are required (they have no default in the reference model), but may be null.
    const skipCerts = nullable((v) => requireInt(v, 0));
    const out = parseModel<PolicyConstraintsValue>(
      requireObject(present(input)),
      { require_explicit_policy: skipCerts, inhibit_policy_mapping: skipCerts },
      ['require_explicit_policy', 'inhibit_policy_mapping'],
    );
    if (out.require_explicit_policy === null && out.inhibit_policy_mapping === null) {
      throw invalid('At least one of require_explicit_policy and inhibit_policy_mapping must not be None');
    }
    return out;
  },
};
