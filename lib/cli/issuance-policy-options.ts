/**
 * The options of edit_ca that set the CA's own issuance policy (docs/guides/issuance-policy.md;
 * `CaRecord.issuancePolicy`): the keys it certifies, narrowed from the built-in set, and the names it
 * allows and denies at every way in. Each option given replaces its part; `--issuance-policy-default`
 * goes back to the built-in policy (the options given with it then fill in their parts). Every entry is
 * checked before anything is written: a bad one is one `Error:` line and a non-zero exit.
 */
import { Option } from 'commander';
import type { CaIssuancePolicy } from '../ports';
import { patchedIssuancePolicy, type CaIssuancePolicyPatch } from '../ca/policy/ca-policy-settings';
import { KEY_KINDS_HELP } from '../ca/policy/ca-keys';

/** Each occurrence of a repeatable option appended to the list. */
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function issuancePolicyOptions(): Option[] {
  return [
    new Option(
      '--issuance-keys <kinds>',
      `the keys the CA certifies, comma-separated, within the built-in set (${KEY_KINDS_HELP}); "default" for the whole set`,
    ),
    new Option(
      '--issuance-allow <name>',
      'certify only names under this DNS suffix or in this IP network, at every way in (repeatable; replaces the allow list)',
    ).argParser(collect),
    new Option(
      '--issuance-deny <name>',
      'never certify names under this DNS suffix or in this IP network (repeatable; replaces the deny list)',
    ).argParser(collect),
    new Option('--issuance-policy-default', 'the built-in issuance policy again: every built-in key kind, no name lists'),
  ];
}

/** What commander parsed for the options above. */
export interface IssuancePolicyFlags {
  issuanceKeys?: string;
  issuanceAllow?: string[];
  issuanceDeny?: string[];
  issuancePolicyDefault?: boolean;
}

const LABELS = { keys: '--issuance-keys', allow: '--issuance-allow', deny: '--issuance-deny' };

/**
 * The CA's policy once the flags are applied to `current`, checked and canonical (null: the built-in
 * policy); undefined when no flag was given.
 */
export function issuancePolicyFromFlags(o: IssuancePolicyFlags, current: CaIssuancePolicy | null): CaIssuancePolicy | null | undefined {
  const patch: CaIssuancePolicyPatch = {};
  if (o.issuanceKeys !== undefined) {
    const text = o.issuanceKeys.trim();
    patch.keys = text.toLowerCase() === 'default' ? null : text.split(/[\s,]+/).filter((k) => k !== '');
  }
  if (o.issuanceAllow !== undefined) patch.allow = o.issuanceAllow;
  if (o.issuanceDeny !== undefined) patch.deny = o.issuanceDeny;
  if (!o.issuancePolicyDefault && Object.keys(patch).length === 0) return undefined;
  return patchedIssuancePolicy(o.issuancePolicyDefault ? null : current, patch, LABELS);
}
