/**
 * BasicConstraints (RFC 5280 §4.2.1.9) ⇄ `{"ca": bool, "path_length": int>=0|null}` (docs/COMPATIBILITY.md §2).
 *
 *   BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER (0..MAX) OPTIONAL }
 *
 * DER omits a DEFAULT value, so `ca: false` is an empty SEQUENCE.
 */
import { bool, Type, integer, parseDer, readBoolean, readInteger, readSequence, seq, toDer } from '../asn1';
import { invalid, parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { nullable, parseModel, present, requireBool, requireInt, requireObject } from '../json-input';

export interface BasicConstraintsValue {
  ca: boolean;
  path_length: number | null;
}

export const basicConstraintsCodec: ExtensionCodec<BasicConstraintsValue> = {
  type: 'basic_constraints',
  oid: EXTENSION_OIDS.basic_constraints,
  defaultCritical: true,
  requiredCritical: null,
  configurable: false,

  decode(der) {
    const items = readSequence(parseDer(der, 'BasicConstraints'), 'BasicConstraints');
    let i = 0;
    let ca = false;
    if (items[i]?.type === Type.BOOLEAN) ca = readBoolean(items[i++], 'BasicConstraints.cA');
    let pathLength: number | null = null;
    if (i < items.length) {
      const n = readInteger(items[i++], 'BasicConstraints.pathLenConstraint');
      if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw parseError('BasicConstraints: bad pathLenConstraint');
      pathLength = Number(n);
    }
    if (i !== items.length) throw parseError('BasicConstraints: trailing data');
    if (!ca && pathLength !== null) throw parseError('BasicConstraints: path length without cA');
    return { ca, path_length: pathLength };
  },

  encode(value) {
    const children = [];
    if (value.ca) children.push(bool(true));
    if (value.path_length !== null) children.push(integer(value.path_length));
    return toDer(seq(children));
  },

  parse(input) {
    // Both keys are required (no defaults in the reference model); path_length may be null.
    const out = parseModel<BasicConstraintsValue>(
      requireObject(present(input)),
      { ca: requireBool, path_length: nullable((v) => requireInt(v, 0)) },
      ['ca', 'path_length'],
    );
    if (!out.ca && out.path_length !== null) throw invalid('path_length must be None when ca is False');
    return out;
  },
};
