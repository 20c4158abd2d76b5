/**
 * CertificatePolicies (RFC 5280 §4.2.1.4) ⇄ array of PolicyInformation (docs/COMPATIBILITY.md §2):
 *   `{"policy_identifier": <dotted>, "policy_qualifiers": [<CPS URI string> | UserNotice] | null}`
 *   UserNotice `{"notice_reference": {"organization", "notice_numbers"} | null, "explicit_text": str|null}`
 *
 *   PolicyQualifierInfo ::= SEQUENCE { policyQualifierId OID, qualifier ANY }
 *     id-qt-cps     → CPSuri ::= IA5String
 *     id-qt-unotice → UserNotice ::= SEQUENCE { noticeRef NoticeReference OPTIONAL, explicitText DisplayText OPTIONAL }
 *   NoticeReference ::= SEQUENCE { organization DisplayText, noticeNumbers SEQUENCE OF INTEGER }
 *
 * DisplayText may be any of IA5String, VisibleString, BMPString or UTF8String when read; we write
 * UTF8String (as cryptography does and RFC 5280 recommends). The JSON does not say which string type a
 * certificate used, so a notice read from a non-UTF8String re-encodes as UTF8String (none of the corpus
 * certificates has a UserNotice; CPS URIs, which are always IA5String, round-trip exactly).
 */
import {
  Type,
  ia5,
  integer,
  isStringNode,
  oid,
  parseDer,
  readInteger,
  readOid,
  readSequence,
  readString,
  seq,
  toDer,
  utf8,
  type Node,
} from '../asn1';
import { invalid, parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { isPlainObject } from '../plain-object';
import { readSmallNonNegative } from '../api-integer';
import {
  nullable,
  parseEach,
  parseModel,
  parseNonEmptySet,
  present,
  requireInt,
  requireList,
  requireObject,
  requireOid,
  requireString,
} from '../json-input';

export interface NoticeReference {
  organization: string | null;
  notice_numbers: number[];
}

export interface UserNotice {
  notice_reference: NoticeReference | null;
  explicit_text: string | null;
}

export type PolicyQualifier = string | UserNotice;

export interface PolicyInformation {
  policy_identifier: string;
  policy_qualifiers: PolicyQualifier[] | null;
}

const OID_CPS = '1.3.6.1.5.5.7.2.1';
const OID_USER_NOTICE = '1.3.6.1.5.5.7.2.2';

const DISPLAY_TEXT_TAGS = new Set<number>([Type.IA5STRING, 26 /* VisibleString */, Type.BMPSTRING, Type.UTF8]);

function readDisplayText(node: Node | undefined, what: string): string {
  if (!node || !isStringNode(node) || !DISPLAY_TEXT_TAGS.has(node.type)) throw parseError(`${what}: expected DisplayText`);
  return readString(node, what);
}

function decodeUserNotice(node: Node): UserNotice {
  const items = readSequence(node, 'UserNotice');
  let i = 0;
  let noticeReference: NoticeReference | null = null;
  if (items[i] && items[i].type === Type.SEQUENCE && !isStringNode(items[i])) {
    const [org, numbers, ...rest] = readSequence(items[i++], 'NoticeReference');
    if (rest.length) throw parseError('NoticeReference: trailing data');
    noticeReference = {
      organization: readDisplayText(org, 'NoticeReference.organization'),
      notice_numbers: readSequence(numbers, 'noticeNumbers').map((n) => readSmallNonNegative(readInteger(n), 'noticeNumber')),
    };
  }
  const explicitText = i < items.length ? readDisplayText(items[i++], 'explicitText') : null;
  if (i !== items.length) throw parseError('UserNotice: trailing data');
  return { notice_reference: noticeReference, explicit_text: explicitText };
}

function decodeQualifier(node: Node): PolicyQualifier {
  const [idNode, qualifier, ...rest] = readSequence(node, 'PolicyQualifierInfo');
  if (rest.length || !qualifier) throw parseError('PolicyQualifierInfo: wrong number of elements');
  const id = readOid(idNode, 'policyQualifierId');
  if (id === OID_CPS) {
    if (qualifier.type !== Type.IA5STRING || !isStringNode(qualifier)) throw parseError('CPSuri: expected IA5String');
    return readString(qualifier, 'CPSuri');
  }
  if (id === OID_USER_NOTICE) return decodeUserNotice(qualifier);
  throw parseError(`PolicyQualifierInfo: unsupported qualifier ${id}`);
}

function encodeQualifier(q: PolicyQualifier): Node {
  if (typeof q === 'string') return seq([oid(OID_CPS), ia5(q)]);
  const parts: Node[] = [];
  if (q.notice_reference) {
    parts.push(seq([utf8(q.notice_reference.organization ?? ''), seq(q.notice_reference.notice_numbers.map((n) => integer(n)))]));
  }
  if (q.explicit_text !== null) parts.push(utf8(q.explicit_text));
  return seq([oid(OID_USER_NOTICE), seq(parts)]);
}

function parseNoticeReference(input: unknown): NoticeReference {
  return parseModel<NoticeReference>(
    requireObject(input),
    {
      organization: (v) => {
        // The reference model allows null, but NoticeReference.organization is mandatory in ASN.1 and
        // cryptography cannot encode a missing one: reject it here instead of failing at signing time.
        if (v === null) throw invalid('organization is required in a notice reference');
        return requireString(v);
      },
      notice_numbers: (v) => parseEach(requireList(v), (n) => requireInt(n, 0)),
    },
    ['notice_numbers'],
  );
}

function parseQualifier(input: unknown): PolicyQualifier {
  if (typeof input === 'string') {
    // CPSuri is an IA5String: only ASCII can be written.
    if (!/^[\x00-\x7f]*$/.test(input)) throw invalid(`${input}: CPS URI must be ASCII`);
    return input;
  }
  if (!isPlainObject(input)) throw invalid('Input should be a valid string or UserNotice object', [], 'union_tag_not_found');
  // explicit_text is required but nullable; notice_reference defaults to null.
  return parseModel<UserNotice>(input, { notice_reference: nullable(parseNoticeReference), explicit_text: nullable(requireString) }, [
    'explicit_text',
  ]);
}

function parsePolicyInformation(input: unknown): PolicyInformation {
  return parseModel<PolicyInformation>(
    requireObject(input),
    {
      policy_identifier: requireOid,
      policy_qualifiers: nullable((v) => parseEach(requireList(v), parseQualifier)),
    },
    ['policy_identifier'],
  );
}

export const certificatePoliciesCodec: ExtensionCodec<PolicyInformation[]> = {
  type: 'certificate_policies',
  oid: EXTENSION_OIDS.certificate_policies,
  defaultCritical: false,
  requiredCritical: null,
  configurable: true,

  decode(der) {
    const policies = readSequence(parseDer(der, 'CertificatePolicies'), 'CertificatePolicies').map((node) => {
      const [id, qualifiers, ...rest] = readSequence(node, 'PolicyInformation');
      if (rest.length) throw parseError('PolicyInformation: trailing data');
      return {
        policy_identifier: readOid(id, 'policyIdentifier'),
        policy_qualifiers: qualifiers ? readSequence(qualifiers, 'policyQualifiers').map(decodeQualifier) : null,
      };
    });
    if (policies.length === 0) throw parseError('CertificatePolicies: empty');
    return policies;
  },

  encode(policies) {
    return toDer(
      seq(
        policies.map((p) => {
          const parts = [oid(p.policy_identifier)];
          if (p.policy_qualifiers !== null) parts.push(seq(p.policy_qualifiers.map(encodeQualifier)));
          return seq(parts);
        }),
      ),
    );
  },

  parse(input) {
    return parseNonEmptySet(present(input), parsePolicyInformation);
  },
};
