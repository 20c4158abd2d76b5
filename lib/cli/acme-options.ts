/**
 * The ACME options of init_ca, import_ca and edit_ca (docs/COMPATIBILITY.md §4.4): one definition for
 * all three, so that the flags, their pairs and the profile check cannot drift apart. They set a CA's
 * `acme_enabled`, `acme_registration` (new accounts allowed, RFC 8555 §7.3), `acme_profile` and
 * `acme_requires_contact` (whether a new account must give a contact, RFC 8555 §7.3), and — ours, kept
 * by the ACME store beside the CA (`AcmeCaPolicy`, docs/guides/acme.md) — whether a new account needs an
 * external account binding (RFC 8555 §7.3.4) and the names the CA issues for. A flag not given leaves
 * its field alone: unchanged on edit_ca, the default on a new CA.
 *
 * With `CA_ENABLE_ACME=false` the original removes these options; here they are hidden from `--help`
 * and refused with an error naming the setting, rather than commander's bare "unknown option".
 */
import { Option } from 'commander';
import { policyNames } from '../acme/policy/entries';
import type { CaAcmeSettings } from '../ca/authorities';
import { CA_PATCH_FIELDS } from '../ports/ca-fields';
import { CaError } from '../ca/errors';
import { DEFAULT_ACME_POLICY, type AcmeCaPolicy } from '../ports';
import type { CommandContext } from './context';
import { flagName, flagPair } from './commands/shared';

/** The boolean fields, each with the flag that sets it to true and the flag that sets it to false. */
const FLAG_PAIRS = [
  { field: 'acmeEnabled', yes: ['--acme-enable', 'enable ACME for this CA'], no: ['--acme-disable', 'disable ACME for this CA'] },
  {
    field: 'acmeRegistration',
    yes: ['--acme-enable-account-registration', 'allow new ACME accounts'],
    no: ['--acme-disable-account-registration', 'forbid new ACME accounts'],
  },
  {
    field: 'acmeRequiresContact',
    yes: ['--acme-contact-required', 'new ACME accounts must give a contact'],
    no: ['--acme-contact-optional', 'new ACME accounts need no contact'],
  },
] as const;

/** The policy's boolean, as the pairs above; its default is `DEFAULT_ACME_POLICY`'s. */
const EAB_PAIR = {
  yes: ['--acme-eab-required', 'new ACME accounts must have an external account binding (create_acme_eab_key)'],
  no: ['--acme-eab-optional', 'new ACME accounts need no external account binding'],
} as const;

/** Each occurrence of a repeatable option appended to the list. */
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** The model default of a new CA's field (lib/ports/ca-fields.ts), which init_ca's and import_ca's help name. */
const modelDefault = (field: 'acmeEnabled' | 'acmeRegistration' | 'acmeRequiresContact' | 'acmeProfile') =>
  CA_PATCH_FIELDS.get(field)?.default;

/**
 * The twelve options. `forNewCa` marks the defaults in the help; `enabled` false (`CA_ENABLE_ACME=false`)
 * hides them.
 */
export function acmeOptions(o: { enabled: boolean; forNewCa: boolean }): Option[] {
  const described = ([flag, text]: readonly [string, string], isDefault: boolean) =>
    new Option(flag, o.forNewCa && isDefault ? `${text} (default)` : text);
  const options = [
    ...FLAG_PAIRS.flatMap((p) => [described(p.yes, modelDefault(p.field) === true), described(p.no, modelDefault(p.field) === false)]),
    new Option(
      '--acme-profile <profile>',
      `profile of the certificates issued through ACME${o.forNewCa ? ` (default: ${String(modelDefault('acmeProfile'))})` : ''}`,
    ),
    described(EAB_PAIR.yes, DEFAULT_ACME_POLICY.eabRequired),
    described(EAB_PAIR.no, !DEFAULT_ACME_POLICY.eabRequired),
    new Option(
      '--acme-allow <name>',
      'issue through ACME only for names under this DNS suffix or in this IP network (repeatable; replaces the allow list)',
    ).argParser(collect),
    new Option(
      '--acme-deny <name>',
      'never issue through ACME for names under this DNS suffix or in this IP network (repeatable; replaces the deny list)',
    ).argParser(collect),
    new Option('--acme-clear-names', 'empty both name lists (an --acme-allow or --acme-deny given with it then fills its own)'),
  ];
  return o.enabled ? options : options.map((option) => option.hideHelp());
}

/** What commander parsed for the options of `acmeOptions`. */
export type AcmeFlags = Readonly<Record<string, unknown>> & {
  acmeProfile?: string;
  acmeAllow?: string[];
  acmeDeny?: string[];
  acmeClearNames?: boolean;
};

/** commander's attribute names of the twelve options (`--acme-enable` → `acmeEnable`). */
const ATTRIBUTES = acmeOptions({ enabled: true, forNewCa: false }).map((option) => option.attributeName());

/** Unless `CA_ENABLE_ACME` is on (default off, as for the server), any of the options is an error naming the setting. */
function refuseWhenOff(o: AcmeFlags, ctx: CommandContext): void {
  const given = ATTRIBUTES.find((a) => o[a] !== undefined);
  if (given !== undefined && !ctx.settings.enableAcme) {
    throw new CaError('invalid', `${flagName(given)}: ACME is disabled (set CA_ENABLE_ACME=true, as for the server, to use it).`);
  }
}

/** The ACME fields of the CA row the flags give; refused when ACME is switched off, or for an unknown profile. */
export function acmeSettings(o: AcmeFlags, ctx: CommandContext): CaAcmeSettings {
  refuseWhenOff(o, ctx);
  const settings: CaAcmeSettings = {};
  for (const pair of FLAG_PAIRS) {
    const value = flagPair(o, new Option(pair.yes[0]).attributeName(), new Option(pair.no[0]).attributeName());
    if (value !== undefined) settings[pair.field] = value;
  }
  if (o.acmeProfile !== undefined) {
    if (!ctx.profiles().has(o.acmeProfile)) throw new CaError('invalid', `${o.acmeProfile}: Profile is not defined.`);
    settings.acmeProfile = o.acmeProfile;
  }
  return settings;
}

/**
 * The change to the CA's ACME policy the flags give, checked before anything is written (null: none
 * given). `--acme-clear-names` empties both lists; a list given replaces the stored one whole.
 */
export function acmePolicyPatch(o: AcmeFlags, ctx: CommandContext): Partial<AcmeCaPolicy> | null {
  refuseWhenOff(o, ctx);
  const patch: Partial<AcmeCaPolicy> = o.acmeClearNames ? { allow: [], deny: [] } : {};
  const eabRequired = flagPair(o, new Option(EAB_PAIR.yes[0]).attributeName(), new Option(EAB_PAIR.no[0]).attributeName());
  if (eabRequired !== undefined) patch.eabRequired = eabRequired;
  if (o.acmeAllow !== undefined) patch.allow = policyNames(o.acmeAllow, '--acme-allow');
  if (o.acmeDeny !== undefined) patch.deny = policyNames(o.acmeDeny, '--acme-deny');
  return Object.keys(patch).length ? patch : null;
}
