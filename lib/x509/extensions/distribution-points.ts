/**
 * CRL Distribution Points and Freshest CRL (RFC 5280 §4.2.1.13, §4.2.1.15), docs/COMPATIBILITY.md §2:
 *
 *   CRLDistributionPoints ::= SEQUENCE SIZE (1..MAX) OF DistributionPoint
 *   DistributionPoint ::= SEQUENCE {
 *        distributionPoint       [0] DistributionPointName OPTIONAL,   -- EXPLICIT (a CHOICE)
 *        reasons                 [1] IMPLICIT ReasonFlags OPTIONAL,
 *        cRLIssuer               [2] IMPLICIT GeneralNames OPTIONAL }
 *   DistributionPointName ::= CHOICE {
 *        fullName                [0] IMPLICIT GeneralNames,
 *        nameRelativeToCRLIssuer [1] IMPLICIT RelativeDistinguishedName }
 *   ReasonFlags ::= BIT STRING { unused(0), keyCompromise(1), ... aACompromise(8) }
 */
import {
  type Node,
  children,
  context,
  contentBytes,
  contextTag,
  explicit,
  implicit,
  parseDer,
  readSequence,
  seq,
  set,
  toDer,
} from '../asn1';
import { invalid, parseError } from '../errors';
import { decodeGeneralName, encodeGeneralName, parseGeneralName } from '../general-name';
import { decodeRelativeName, encodeRelativeName, parseName } from '../name';
import type { GeneralName, Name } from '../types';
import { literalList, pyGeneralNames, pyName, pyStr } from '../error-text';
import type { ExtensionCodec } from './codec';
import { canonicalKey, checkNonEmptyUnique, nullable, parseEach, parseModel, requireList, requireObject } from '../json-input';

/** Bit numbers of ReasonFlags; `unused(0)` has no API name. */
const REASON_BITS = {
  key_compromise: 1,
  ca_compromise: 2,
  affiliation_changed: 3,
  superseded: 4,
  cessation_of_operation: 5,
  certificate_hold: 6,
  privilege_withdrawn: 7,
  aa_compromise: 8,
} as const;

export type DistributionPointReason = keyof typeof REASON_BITS;

const REASON_NAMES = (Object.keys(REASON_BITS) as DistributionPointReason[]).sort();

export interface DistributionPoint {
  full_name: GeneralName[] | null;
  relative_name: Name | null;
  crl_issuer: GeneralName[] | null;
  /** A set upstream; emitted sorted alphabetically (docs/reference/differences.md D8). */
  reasons: DistributionPointReason[] | null;
}

// ---------------------------------------------------------------------------------------------------
// DER → value

function decodeReasons(node: Node, what: string): DistributionPointReason[] | null {
  const raw = contentBytes(node, what);
  if (raw.length === 0 || raw[0] > 7 || (raw.length === 1 && raw[0] !== 0)) {
    throw parseError(`${what}: malformed BIT STRING`);
  }
  const bits = raw.subarray(1);
  const isSet = (n: number) => n >> 3 < bits.length && (bits[n >> 3] & (0x80 >> (n & 7))) !== 0;
  const reasons = REASON_NAMES.filter((name) => isSet(REASON_BITS[name]));
  // An empty set reads as "no reasons", as in the reference.
  return reasons.length ? reasons : null;
}

function decodeDistributionPoint(node: Node, what: string): DistributionPoint {
  const parts = readSequence(node, what);
  const dp: DistributionPoint = { full_name: null, relative_name: null, crl_issuer: null, reasons: null };
  let i = 0;
  if (parts[i] && contextTag(parts[i]) === 0) {
    const inner = children(parts[i], `${what} distributionPoint`);
    if (inner.length !== 1) throw parseError(`${what}: distributionPoint must hold one name`);
    const name = inner[0];
    if (contextTag(name) === 0) {
      dp.full_name = children(name, `${what} fullName`).map(decodeGeneralName);
    } else if (contextTag(name) === 1) {
      // One RDN ([1] IMPLICIT SET OF); the API shows it as a flat attribute list.
      dp.relative_name = decodeRelativeName(set(children(name, `${what} nameRelativeToCRLIssuer`)));
    } else {
      throw parseError(`${what}: unknown DistributionPointName`);
    }
    i++;
  }
  if (parts[i] && contextTag(parts[i]) === 1) dp.reasons = decodeReasons(parts[i++], `${what} reasons`);
  if (parts[i] && contextTag(parts[i]) === 2) {
    dp.crl_issuer = children(parts[i++], `${what} cRLIssuer`).map(decodeGeneralName);
  }
  if (i !== parts.length) throw parseError(`${what}: unexpected element in DistributionPoint`);
  return dp;
}

export function decodeDistributionPoints(der: Buffer, what: string): DistributionPoint[] {
  return readSequence(parseDer(der, what), what).map((n) => decodeDistributionPoint(n, `${what} DistributionPoint`));
}

// ---------------------------------------------------------------------------------------------------
// value → DER

/** DER named-bit list: trailing zero bits dropped, unused-bit count set accordingly (X.690 §11.2.2). */
function encodeReasons(reasons: DistributionPointReason[]): Node {
  const bitNumbers = reasons.map((r) => REASON_BITS[r]);
  const highest = Math.max(...bitNumbers);
  const bytes = Buffer.alloc((highest >> 3) + 1);
  for (const n of bitNumbers) bytes[n >> 3] |= 0x80 >> (n & 7);
  const unusedBits = 7 - (highest & 7);
  return context(1, false, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

function encodeDistributionPoint(dp: DistributionPoint): Node {
  const parts: Node[] = [];
  if (dp.full_name?.length) {
    parts.push(explicit(0, context(0, true, dp.full_name.map(encodeGeneralName))));
  } else if (dp.relative_name?.length) {
    parts.push(explicit(0, implicit(1, encodeRelativeName(dp.relative_name))));
  }
  if (dp.reasons?.length) parts.push(encodeReasons(dp.reasons));
  if (dp.crl_issuer?.length) parts.push(context(2, true, dp.crl_issuer.map(encodeGeneralName)));
  return seq(parts);
}

export function encodeDistributionPoints(value: DistributionPoint[]): Buffer {
  return toDer(seq(value.map(encodeDistributionPoint)));
}

// ---------------------------------------------------------------------------------------------------
// API input → value

/** full_name / crl_issuer: a plain list of GeneralName upstream (no uniqueness rule); [] means absent. */
function parseGeneralNameList(raw: unknown): GeneralName[] | null {
  const list = parseEach(requireList(raw), parseGeneralName);
  return list.length ? list : null;
}

/** Name rules apply; attributes are put in DER order so that the value survives a round trip. */
function parseRelativeName(raw: unknown): Name | null {
  const name = parseName(raw);
  if (!name.length) return null;
  // encodeRelativeName sorts by encoding (DER SET OF); order the value the same way.
  const derOf = (attribute: Name[number]) => toDer((encodeRelativeName([attribute]).value as Node[])[0]);
  return name
    .map((attribute) => ({ attribute, der: derOf(attribute) }))
    .sort((a, b) => Buffer.compare(a.der, b.der))
    .map((a) => a.attribute);
}

function parseReasons(raw: unknown): DistributionPointReason[] | null {
  if (!Array.isArray(raw)) throw invalid('Input should be a valid set', [], 'set_type');
  const reasons = parseEach(raw, (item) => {
    if (typeof item !== 'string' || !(item in REASON_BITS)) {
      throw invalid(`Input should be ${literalList(REASON_NAMES)}`, [], 'literal_error');
    }
    return item as DistributionPointReason;
  });
  const unique = REASON_NAMES.filter((r) => reasons.includes(r));
  return unique.length ? unique : null;
}

function parseDistributionPoint(input: unknown): DistributionPoint {
  const dp = parseModel<DistributionPoint>(requireObject(input, 'DistributionPointModel'), {
    full_name: nullable(parseGeneralNameList),
    relative_name: nullable(parseRelativeName),
    crl_issuer: nullable(parseGeneralNameList),
    reasons: nullable(parseReasons),
  });
  if (dp.full_name && dp.relative_name) throw invalid('must give exactly one of full_name or relative_name.');
  if (!dp.full_name && !dp.relative_name && !dp.crl_issuer) {
    throw invalid('either full_name, relative_name or crl_issuer must be provided.');
  }
  return dp;
}

function pyDistributionPoint(dp: DistributionPoint): string {
  const reasons = dp.reasons ? `{${dp.reasons.map(pyStr).join(', ')}}` : 'None';
  const relative = dp.relative_name ? pyName(dp.relative_name) : 'None';
  return (
    `full_name=${pyGeneralNames(dp.full_name)} relative_name=${relative} ` +
    `crl_issuer=${pyGeneralNames(dp.crl_issuer)} reasons=${reasons}`
  );
}

export function parseDistributionPoints(input: unknown): DistributionPoint[] {
  const list = parseEach(requireList(input), parseDistributionPoint);
  return checkNonEmptyUnique(list, canonicalKey, pyDistributionPoint);
}

export function distributionPointsCodec(
  type: 'crl_distribution_points' | 'freshest_crl',
  oid: string,
  requiredCritical: boolean | null,
): ExtensionCodec<DistributionPoint[]> {
  return {
    type,
    oid,
    defaultCritical: false,
    requiredCritical,
    configurable: true,
    decode: (der) => decodeDistributionPoints(der, type),
    encode: encodeDistributionPoints,
    parse: parseDistributionPoints,
  };
}
