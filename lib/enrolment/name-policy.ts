/**
 * An enrolment endpoint's name policy (`est.names`, `scep.names`, and each label's; docs/guides/est.md,
 * "SCEP"): which names a certificate issued there may carry. The allow and deny lists are a CA's ACME
 * name policy's (`edit_ca --acme-allow/--acme-deny`): the same entries, checked and made canonical by
 * the same code, covering by the same rules (lib/ca/name-policy). Besides, `subjectAttributes`: the
 * attribute types a subject may have (null: any).
 *
 * What is checked, in every request that issues at the endpoint — renewals too, so that a policy
 * tightened since a certificate was issued stops its renewal:
 * - every DNS and IP subjectAltName must be allowed;
 * - a subjectAltName of another type (email, URI, a directory or other name) is refused: the lists
 *   cannot say which of those to allow, and the certificate is to carry only names the policy allowed;
 * - a commonName that is a domain name (it has a dot) or an IP address must be allowed as the
 *   subjectAltNames are; any other commonName (a device's serial, say) is a label, not a name, and only
 *   `subjectAttributes` governs it;
 * - every attribute of the subject must be of a type in `subjectAttributes`, when that is a list.
 *
 * The refusal names what was refused (EST: 403 with the reason; SCEP: FAILURE badRequest), before
 * anything is signed.
 */
import { CaError } from '../ca/errors';
import { refusal, type PolicyName } from '../ca/name-policy/covers';
import { policyNames } from '../ca/name-policy/entries';
import { isObjectLike, OptionsError, show, checkOptionNames } from '../http/option-checks';
import { canonicalIp } from '../x509/ip-address';
import { nameOidLongName, parseNameOid } from '../x509/name';
import { OID_COMMON_NAME } from '../x509/oids';
import type { EnrolmentNamePolicy } from '../ports';
import type { ParsedCsr } from '../x509/csr';
import type { GeneralName } from '../x509/types';
import { EnrolmentError } from './errors';

/** An endpoint's name policy, with canonical entries: the one endpoints kept in the database keep too. */
export type { EnrolmentNamePolicy };

/** The option as a host writes it: entries as `--acme-allow` takes them, attribute types by alias (`CN`, `O`) or OID. */
export interface EnrolmentNamePolicyOptions {
  allow?: string[];
  deny?: string[];
  subjectAttributes?: string[] | null;
}

function stringList(name: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new OptionsError(`option \`${name}\` must be an array of strings (got ${show(value)})`);
  }
  return value as string[];
}

function entries(name: string, value: unknown): string[] {
  try {
    return policyNames(stringList(name, value), `option \`${name}\` entry`);
  } catch (e) {
    if (e instanceof CaError) throw new OptionsError(e.message);
    throw e;
  }
}

function attributeTypes(name: string, value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  const types = stringList(name, value).map((type) => {
    try {
      return nameOidLongName(parseNameOid(type));
    } catch {
      throw new OptionsError(`option \`${name}\`: ${show(type)} is not a subject attribute type (e.g. CN, O, OU, or a dotted OID)`);
    }
  });
  return [...new Set(types)];
}

/** `value` (the option `name`) checked and made canonical; null when absent. */
export function resolveNamePolicy(name: string, value: unknown): EnrolmentNamePolicy | null {
  if (value === undefined || value === null) return null;
  if (!isObjectLike(value)) {
    throw new OptionsError(`option \`${name}\` must be an object such as { allow: ['devices.example.org'] } (got ${show(value)})`);
  }
  checkOptionNames(value, ['allow', 'deny', 'subjectAttributes'], `{ ${name}: { allow: ['devices.example.org'] } }`, 'createCaApiRouter');
  const o = value as Record<string, unknown>;
  return {
    allow: entries(`${name}.allow`, o.allow),
    deny: entries(`${name}.deny`, o.deny),
    subjectAttributes: attributeTypes(`${name}.subjectAttributes`, o.subjectAttributes),
  };
}

/** A commonName as a policy name: a domain name (with a dot) or an IP address; else null (a label, not a name). */
function commonNameAsName(value: string): PolicyName | null {
  if (canonicalIp(value) !== null) return { type: 'ip', value };
  const name = value.toLowerCase().replace(/\.$/, '');
  return /^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(name) ? { type: 'dns', value: name } : null;
}

function sanNames(csr: ParsedCsr): GeneralName[] {
  return (csr.requestedExtensions.find((e) => e.type === 'subject_alternative_name')?.value as GeneralName[] | undefined) ?? [];
}

/**
 * The OID of a policy's attribute type, in whichever form it was written (an alias such as `CN`, a long
 * name, a dotted OID: the options keep long names, an endpoint kept in the database what ca-admin was given).
 */
function attributeOid(type: string): string[] {
  try {
    return [parseNameOid(type)];
  } catch {
    return []; // checked when it was set; one that does not read allows nothing
  }
}

/** Why `policy` refuses `csr`'s names, or null when it allows them all. */
export function namePolicyRefusal(policy: EnrolmentNamePolicy, csr: ParsedCsr): string | null {
  const reasons: string[] = [];
  const check = (name: PolicyName, shown: string) => {
    const why = refusal(policy, name);
    if (why === 'denied') reasons.push(`${shown} is denied`);
    else if (why === 'not-allowed') reasons.push(`${shown} is not among the allowed names`);
  };
  const allowed = policy.subjectAttributes;
  const allowedTypes = allowed === null ? null : new Set(allowed.flatMap(attributeOid));
  for (const attribute of csr.subject) {
    const type = nameOidLongName(attribute.oid);
    if (allowed !== null && !allowedTypes?.has(attribute.oid)) {
      reasons.push(`the subject attribute ${type} is not allowed (allowed: ${allowed.join(', ') || 'none'})`);
    } else if (attribute.oid === OID_COMMON_NAME) {
      const name = commonNameAsName(attribute.value);
      if (name) check(name, `the commonName ${attribute.value}`);
    }
  }
  for (const san of sanNames(csr)) {
    if (san.type === 'DNS') check({ type: 'dns', value: san.value.toLowerCase().replace(/\.$/, '') }, `DNS:${san.value}`);
    else if (san.type === 'IP') check({ type: 'ip', value: san.value }, `IP:${san.value}`);
    else {
      const value = typeof san.value === 'string' ? `:${san.value}` : '';
      reasons.push(`the subjectAltName ${san.type}${value} is not allowed (only DNS names and IP addresses are)`);
    }
  }
  return reasons.length === 0 ? null : reasons.join('; ');
}

/** Refuse `csr` (403 / badRequest, naming what) unless `policy` (null: any name) allows every name it asks for. */
export function checkNamePolicy(policy: EnrolmentNamePolicy | null, csr: ParsedCsr): void {
  if (policy === null) return;
  const refused = namePolicyRefusal(policy, csr);
  if (refused !== null) throw new EnrolmentError(403, `The endpoint's name policy refuses the request: ${refused}.`, 'badRequest');
}
