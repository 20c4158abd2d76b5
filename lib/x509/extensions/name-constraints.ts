/**
 * nameConstraints (RFC 5280 §4.2.1.10), docs/COMPATIBILITY.md §2:
 *
 *   NameConstraints ::= SEQUENCE {
 *        permittedSubtrees [0] IMPLICIT GeneralSubtrees OPTIONAL,
 *        excludedSubtrees  [1] IMPLICIT GeneralSubtrees OPTIONAL }
 *   GeneralSubtrees ::= SEQUENCE SIZE (1..MAX) OF GeneralSubtree
 *   GeneralSubtree ::= SEQUENCE {
 *        base    GeneralName,
 *        minimum [0] IMPLICIT BaseDistance DEFAULT 0,
 *        maximum [1] IMPLICIT BaseDistance OPTIONAL }
 *
 * The API value only has the `base` names. RFC 5280 forbids minimum/maximum in certificates ("MUST
 * be zero" / "MUST be absent"); like the reference we ignore them when reading and never write them.
 */
import { type Node, children, context, contextTag, parseDer, readSequence, seq, toDer } from '../asn1';
import { invalid, parseError } from '../errors';
import { decodeGeneralName, encodeGeneralName, parseGeneralNames } from '../general-name';
import { EXTENSION_OIDS } from '../oids';
import type { GeneralName } from '../types';
import type { ExtensionCodec } from './codec';
import { nullable, parseModel, requireObject } from '../json-input';

export interface NameConstraints {
  permitted_subtrees: GeneralName[] | null;
  excluded_subtrees: GeneralName[] | null;
}

const WHAT = 'name_constraints';

function decodeSubtrees(node: Node): GeneralName[] {
  return children(node, `${WHAT} subtrees`).map((subtree) => {
    const parts = readSequence(subtree, `${WHAT} GeneralSubtree`);
    if (parts.length === 0 || parts.length > 3) throw parseError(`${WHAT}: malformed GeneralSubtree`);
    return decodeGeneralName(parts[0]);
  });
}

function decode(der: Buffer): NameConstraints {
  const parts = readSequence(parseDer(der, WHAT), WHAT);
  const value: NameConstraints = { permitted_subtrees: null, excluded_subtrees: null };
  let i = 0;
  if (parts[i] && contextTag(parts[i]) === 0) value.permitted_subtrees = decodeSubtrees(parts[i++]);
  if (parts[i] && contextTag(parts[i]) === 1) value.excluded_subtrees = decodeSubtrees(parts[i++]);
  if (i !== parts.length) throw parseError(`${WHAT}: unexpected element`);
  return value;
}

function encodeSubtrees(tag: number, names: GeneralName[]): Node {
  return context(
    tag,
    true,
    names.map((name) => seq([encodeGeneralName(name)])),
  );
}

function encode(value: NameConstraints): Buffer {
  const parts: Node[] = [];
  if (value.permitted_subtrees) parts.push(encodeSubtrees(0, value.permitted_subtrees));
  if (value.excluded_subtrees) parts.push(encodeSubtrees(1, value.excluded_subtrees));
  return toDer(seq(parts));
}

function parse(input: unknown): NameConstraints {
  // Each list is a non-empty, unique GeneralNames list when given.
  const value = parseModel<NameConstraints>(requireObject(input, 'NameConstraintsValueModel'), {
    permitted_subtrees: nullable(parseGeneralNames),
    excluded_subtrees: nullable(parseGeneralNames),
  });
  if (value.permitted_subtrees === null && value.excluded_subtrees === null) {
    throw invalid('At least one of permitted_subtrees and excluded_subtrees must not be None');
  }
  return value;
}

export const nameConstraintsCodec: ExtensionCodec<NameConstraints> = {
  type: 'name_constraints',
  oid: EXTENSION_OIDS.name_constraints,
  defaultCritical: true,
  requiredCritical: true,
  configurable: false,
  decode,
  encode,
  parse,
};
