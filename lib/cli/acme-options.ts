/**
 * The ACME options of init_ca, import_ca and edit_ca (docs/COMPATIBILITY.md §4.4): one definition for
 * all three, so that the flags, their pairs and the profile check cannot drift apart. They set a CA's
 * `acme_enabled`, `acme_registration` (new accounts allowed, RFC 8555 §7.3), `acme_profile` and
 * `acme_requires_contact` (whether a new account must give a contact, RFC 8555 §7.3). A flag not given
 * leaves its field alone: unchanged on edit_ca, the model default on a new CA.
 *
 * With `CA_ENABLE_ACME=false` the original removes these options; here they are hidden from `--help`
 * and refused with an error naming the setting, rather than commander's bare "unknown option".
 */
import { Option } from 'commander';
import type { CaAcmeSettings } from '../ca/authorities';
import { CA_PATCH_FIELDS } from '../ca/ca-fields';
import { CaError } from '../ca/errors';
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

/** The model default of a new CA's field (lib/ca/ca-fields.ts), which init_ca's and import_ca's help name. */
const modelDefault = (field: 'acmeEnabled' | 'acmeRegistration' | 'acmeRequiresContact' | 'acmeProfile') =>
  CA_PATCH_FIELDS.get(field)?.default;

/**
 * The seven options. `forNewCa` marks the defaults in the help; `enabled` false (`CA_ENABLE_ACME=false`)
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
  ];
  return o.enabled ? options : options.map((option) => option.hideHelp());
}

/** What commander parsed for the options of `acmeOptions`. */
export type AcmeFlags = Readonly<Record<string, unknown>> & { acmeProfile?: string };

/** commander's attribute names of the seven options (`--acme-enable` → `acmeEnable`). */
const ATTRIBUTES = acmeOptions({ enabled: true, forNewCa: false }).map((option) => option.attributeName());

/** The ACME fields the flags give; refused when ACME is switched off, or for an unknown profile. */
export function acmeSettings(o: AcmeFlags, ctx: CommandContext): CaAcmeSettings {
  const given = ATTRIBUTES.find((a) => o[a] !== undefined);
  if (given !== undefined && !ctx.settings.enableAcme) {
    throw new CaError('invalid', `${flagName(given)}: ACME is disabled (CA_ENABLE_ACME=false).`);
  }
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
