/**
 * create_enrolment_endpoint, list_enrolment_endpoints, edit_enrolment_endpoint,
 * delete_enrolment_endpoint (docs/guides/est.md, docs/guides/scep.md): enrolment endpoints kept in the database
 * (lib/enrolment/stored-endpoints.ts), beside those of the code's options, which win for their label.
 * A generated static challenge is printed once, by the command that made it, and kept as its SHA-256.
 */
import { Option, type Command } from 'commander';
import { policyNames } from '../../acme/policy/entries';
import { CaError } from '../../ca/errors';
import { findCa } from '../../ca/lookup';
import {
  challengeKind,
  createEnrolmentEndpoint,
  deleteEnrolmentEndpoint,
  editEnrolmentEndpoint,
  endpointName,
  findStoredEndpoint,
  generateChallenge,
  listEnrolmentEndpoints,
  parseProtocol,
  parseSubjectAttributes,
  type EnrolmentEndpointSettings,
} from '../../enrolment/stored-endpoints';
import type { CaRecord, EnrolmentNamePolicy, StoredEnrolmentEndpoint } from '../../ports';
import type { CommandContext } from '../context';
import { promptPassword } from '../password-prompt';
import { flagPair, intOption, type Action } from './shared';

interface Flags {
  ca?: string;
  profile?: string;
  defaultProfile?: boolean;
  /** `generate`, `prompt`, `webhook`; false: `--no-challenge`. */
  challenge?: string | false;
  /** false: `--no-requests-per-minute`. */
  requestsPerMinute?: string | false;
  approval?: boolean;
  allow?: string[];
  deny?: string[];
  subjectAttributes?: string;
  anyName?: boolean;
  validity?: string;
  defaultValidity?: boolean;
  enable?: boolean;
  disable?: boolean;
}

/** Each occurrence of a repeatable option appended to the list. */
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** The options create and edit share. */
function settingOptions(): Option[] {
  return [
    new Option('--profile <profile>', "profile of the certificates (default: the router's default profile)"),
    new Option(
      '--challenge <how>',
      'a static challenge password that SCEP requests may carry: generate (printed once) or prompt (typed, or piped on standard input), ' +
        "kept only as its SHA-256; or webhook: challenges go to the challenge webhook of the server's options for the protocol " +
        '(est.challengeWebhook, scep.challengeWebhook); one-time challenges work with each',
    ).choices(['generate', 'prompt', 'webhook']),
    new Option(
      '--requests-per-minute <n>',
      'at most this many enrolment requests a minute, per server process; more get 429 (1 to 1000000)',
    ),
    new Option(
      '--allow <name>',
      'issue only for names under this DNS suffix or in this IP network (repeatable; replaces the allow list)',
    ).argParser(collect),
    new Option(
      '--deny <name>',
      'never issue for names under this DNS suffix or in this IP network (repeatable; replaces the deny list)',
    ).argParser(collect),
    new Option('--subject-attributes <names>', 'the subject attributes a request may ask for, comma-separated (e.g. CN,O)'),
    new Option('--validity <days>', "validity of the certificates in days, clamped by the CA (default: the profile's)"),
  ];
}

/** The name policy the flags give, from `current` (null: none yet); undefined: the flags say nothing of it. */
function namePolicy(o: Flags, current: EnrolmentNamePolicy | null): EnrolmentNamePolicy | null | undefined {
  const given = o.allow !== undefined || o.deny !== undefined || o.subjectAttributes !== undefined;
  if (o.anyName) {
    if (given) throw new CaError('invalid', '--any-name and --allow, --deny or --subject-attributes are mutually exclusive.');
    return null;
  }
  if (!given) return undefined;
  const policy: EnrolmentNamePolicy = { ...(current ?? { allow: [], deny: [], subjectAttributes: null }) };
  if (o.allow !== undefined) policy.allow = policyNames(o.allow, '--allow');
  if (o.deny !== undefined) policy.deny = policyNames(o.deny, '--deny');
  if (o.subjectAttributes !== undefined) policy.subjectAttributes = parseSubjectAttributes(o.subjectAttributes, '--subject-attributes');
  return policy;
}

/** The settings of the flags, checked; `secret` is the challenge to print once, if one was generated. */
async function settingsOf(
  ctx: CommandContext,
  o: Flags,
  current: StoredEnrolmentEndpoint | null,
  ca: CaRecord | undefined,
): Promise<{ settings: EnrolmentEndpointSettings; generated: string | null }> {
  const settings: EnrolmentEndpointSettings = {};
  if (ca) settings.ca = ca;
  if (o.profile !== undefined && o.defaultProfile) throw new CaError('invalid', '--profile and --default-profile are mutually exclusive.');
  if (o.profile !== undefined) settings.profile = o.profile;
  if (o.defaultProfile) settings.profile = null;
  if (o.approval !== undefined) settings.approval = o.approval;
  const names = namePolicy(o, current?.names ?? null);
  if (names !== undefined) settings.names = names;
  if (o.validity !== undefined && o.defaultValidity)
    throw new CaError('invalid', '--validity and --default-validity are mutually exclusive.');
  if (o.validity !== undefined) settings.validityDays = intOption(o.validity, '--validity');
  if (o.defaultValidity) settings.validityDays = null;
  const enabled = flagPair({ enable: o.enable, disable: o.disable }, 'enable', 'disable');
  if (enabled !== undefined) settings.enabled = enabled;
  if (o.requestsPerMinute === false) settings.requestsPerMinute = null;
  else if (o.requestsPerMinute !== undefined) settings.requestsPerMinute = intOption(o.requestsPerMinute, '--requests-per-minute');
  // One kind of challenge per endpoint (one-time challenges work with each): a static one, or the webhook.
  if (o.challenge !== undefined) settings.challengeWebhook = o.challenge === 'webhook';
  let generated: string | null = null;
  if (o.challenge === false || o.challenge === 'webhook') settings.challenge = null;
  else if (o.challenge === 'generate') settings.challenge = generated = generateChallenge();
  else if (o.challenge === 'prompt') settings.challenge = await promptPassword(ctx.io.stdin, ctx.io.stderr, { option: null });
  return { settings, generated };
}

/** `est/devices - CA Device CA (4A:…) - profile client - challenge static - approval no - names any - validity default - requests/min any - enabled` */
function endpointLine(e: StoredEnrolmentEndpoint, cas: ReadonlyMap<number, CaRecord>): string {
  const ca = cas.get(e.caId);
  const names = e.names
    ? [
        `allow ${e.names.allow.join(', ') || '(any)'}`,
        `deny ${e.names.deny.join(', ') || '(none)'}`,
        `subject ${e.names.subjectAttributes?.join(', ') ?? '(any)'}`,
      ].join('; ')
    : 'any';
  return [
    endpointName(e.protocol, e.label),
    `CA ${ca ? `${ca.name} (${ca.serial})` : e.caId}`,
    `profile ${e.profile ?? 'default'}`,
    `challenge ${challengeKind(e)}`,
    `approval ${e.approval ? 'yes' : 'no'}`,
    `names ${names}`,
    `validity ${e.validityDays === null ? 'default' : `${e.validityDays} days`}`,
    `requests/min ${e.requestsPerMinute ?? 'any'}`,
    e.enabled ? 'enabled' : 'disabled',
  ].join(' - ');
}

const PROTOCOL_HELP = 'est or scep';
const LABEL_HELP = "the label of its URLs: /.well-known/est/LABEL/… or {urlPath}scep/LABEL (letters, digits, '_', '.', '-')";

export function registerEnrolmentEndpointCommands(program: Command, run: Action): void {
  const create = program
    .command('create_enrolment_endpoint')
    .description(
      'Add an enrolment endpoint kept in the database: the CA, profile, challenge (static for SCEP, or the webhook of the options), ' +
        "request budget, name policy and validity of the certificates a label enrols. An endpoint of the server's options with the same label wins. " +
        'With --challenge generate, prints the challenge once (and nothing else).',
    )
    .argument('<protocol>', PROTOCOL_HELP)
    .argument('<label>', LABEL_HELP)
    .requiredOption('--ca <ca>', 'the CA: its serial or name');
  for (const option of settingOptions()) create.addOption(option);
  create
    .option('--approval', 'requests wait for an operator')
    .option('--disable', 'make it disabled (its URLs answer 404 until edit_enrolment_endpoint --enable)')
    .action(
      run(async (ctx: CommandContext, protocolText: string, label: string, o: Flags) => {
        const protocol = parseProtocol(protocolText);
        const store = await ctx.store();
        const ca = await findCa(store, o.ca!);
        const { settings, generated } = await settingsOf(ctx, o, null, ca);
        await createEnrolmentEndpoint(store, protocol, label, { ...settings, ca }, { profiles: ctx.profiles() });
        ctx.write(generated ? `challenge: ${generated}\n` : `Created enrolment endpoint ${endpointName(protocol, label)}.\n`);
      }),
    );

  program
    .command('list_enrolment_endpoints')
    .description(
      'List the enrolment endpoints kept in the database: label, CA, profile, challenge, approval, name policy, validity, state ' +
        '(never a challenge).',
    )
    .action(
      run(async (ctx: CommandContext) => {
        const store = await ctx.store();
        const endpoints = await listEnrolmentEndpoints(store);
        const cas = new Map((await store.listCas()).map((ca) => [ca.id, ca]));
        ctx.write(endpoints.length ? endpoints.map((e) => endpointLine(e, cas) + '\n').join('') : 'No enrolment endpoints.\n');
      }),
    );

  const edit = program
    .command('edit_enrolment_endpoint')
    .description(
      'Change an enrolment endpoint kept in the database; a flag not given leaves its setting alone. ' +
        'With --challenge generate, prints the new challenge once (and nothing else).',
    )
    .argument('<protocol>', PROTOCOL_HELP)
    .argument('<label>', 'its label (list_enrolment_endpoints)')
    .option('--ca <ca>', 'another CA: its serial or name');
  for (const option of settingOptions()) edit.addOption(option);
  edit
    .option('--default-profile', "use the router's default profile")
    .option('--no-challenge', 'remove the static challenge or the webhook (one-time challenges only)')
    .option('--no-requests-per-minute', 'remove the budget: no limit')
    .option('--approval', 'requests wait for an operator')
    .option('--no-approval', 'requests are answered at once')
    .option('--any-name', 'remove the name policy (any name)')
    .option('--default-validity', "use the profile's validity")
    .option('--enable', 'enable the endpoint')
    .option('--disable', 'disable the endpoint: its URLs answer 404')
    .action(
      run(async (ctx: CommandContext, protocolText: string, label: string, o: Flags) => {
        const protocol = parseProtocol(protocolText);
        const store = await ctx.store();
        const ca = o.ca === undefined ? undefined : await findCa(store, o.ca);
        const current = await findStoredEndpoint(store, protocol, label);
        const { settings, generated } = await settingsOf(ctx, o, current, ca);
        await editEnrolmentEndpoint(store, protocol, label, settings, { profiles: ctx.profiles() });
        ctx.write(generated ? `challenge: ${generated}\n` : `Edited enrolment endpoint ${endpointName(protocol, label)}.\n`);
      }),
    );

  program
    .command('delete_enrolment_endpoint')
    .description('Delete an enrolment endpoint kept in the database: its URLs answer 404 (unless the options name the label).')
    .argument('<protocol>', PROTOCOL_HELP)
    .argument('<label>', 'its label (list_enrolment_endpoints)')
    .action(
      run(async (ctx: CommandContext, protocolText: string, label: string) => {
        const protocol = parseProtocol(protocolText);
        await deleteEnrolmentEndpoint(await ctx.store(), protocol, label);
        ctx.write(`Deleted enrolment endpoint ${endpointName(protocol, label)}.\n`);
      }),
    );
}
