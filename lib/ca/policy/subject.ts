/**
 * What the subject of a certificate may say (docs/guides/issuance-policy.md):
 * - no attribute carries a C0 or C1 control character (U+0000–U+001F, U+007F–U+009F): a terminal, a
 *   log line or a management console that shows the name would act on them (ESC sequences, BEL);
 * - a common name that is an IP address or a DNS name follows the rule for subjectAltName values
 *   (lib/x509/issuable-names.ts): clients that still read the CN as a host name (RFC 6125 §6.4.4)
 *   must not be handed `0.0.0.0` or `localhost.` that way.
 */
import { canonicalIp } from '../../x509/ip-address';
import { dnsNameProblem, ipAddressProblem } from '../../x509/issuable-names';
import { nameOidLongName } from '../../x509/name';
import { OID_COMMON_NAME } from '../../x509/oids';
import type { GeneralName, Name } from '../../x509/types';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A label-dot-label text of LDH labels (a wildcard's `*.` allowed): what a CN is when it is a host name. */
const DNS_LIKE = /^(\*\.)?([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?\.)+[a-z0-9_-]*[a-z0-9_]\.?$/i;

/** The common name as a subjectAltName would carry it, when it is a host name or address; else null. */
export function commonNameAsName(value: string): (GeneralName & { type: 'IP' | 'DNS'; value: string }) | null {
  if (canonicalIp(value) !== null && !value.includes('/')) return { type: 'IP', value };
  if (DNS_LIKE.test(value)) return { type: 'DNS', value };
  return null;
}

/** One problem of the subject: where (the attribute's index) and why. */
export interface SubjectProblem {
  index: number;
  message: string;
  rule: 'subject-text' | 'unusable-name';
}

/** Every problem of `subject` under the rules above. */
export function subjectProblems(subject: Name): SubjectProblem[] {
  const problems: SubjectProblem[] = [];
  subject.forEach((attribute, index) => {
    if (CONTROL.test(attribute.value)) {
      problems.push({
        index,
        rule: 'subject-text',
        message: `${nameOidLongName(attribute.oid)}: a subject attribute cannot contain a control character.`,
      });
      return;
    }
    if (attribute.oid !== OID_COMMON_NAME) return;
    const asName = commonNameAsName(attribute.value);
    if (asName === null) return;
    const problem = asName.type === 'IP' ? ipAddressProblem(asName.value) : dnsNameProblem(asName.value);
    if (problem !== null) {
      problems.push({ index, rule: 'unusable-name', message: `${attribute.value}: cannot be in a certificate: ${problem}.` });
    }
  });
  return problems;
}
