/**
 * The form of an enrolment endpoint kept in the database (docs/guides/admin-interface.md, docs/guides/est.md, docs/guides/scep.md):
 * the settings `ca-admin create_enrolment_endpoint` / `edit_enrolment_endpoint` take, as fields, and
 * back. What it reads is checked by lib/enrolment/stored-endpoints.ts, as the CLI's flags are, so the
 * two ways agree on every rule and its wording. The static challenge is never shown: a generated one
 * is shown once, on the answer to the POST that made it.
 */
import { policyNames } from '../acme/policy/entries';
import type { Profiles } from '../ca/profiles';
import { CaError } from '../ca/errors';
import { challengeKind, generateChallenge, parseSubjectAttributes, type EnrolmentEndpointSettings } from '../enrolment/stored-endpoints';
import type { StoredEnrolmentEndpoint } from '../ports';
import { lines } from './ca-form';
import { checkbox, namesField, textField } from './fields';
import { html, type Html } from './html';

/** The challenge choices: `keep` (edit only) leaves the current one; `generate` makes a static one (SCEP). */
export type ChallengeChoice = 'keep' | 'none' | 'generate' | 'webhook';

/** The form's values as typed: what the fields show again after a refusal. */
export interface EndpointFormValues {
  protocol: string;
  label: string;
  profile: string;
  challenge: ChallengeChoice;
  requestsPerMinute: string;
  approval: boolean;
  allow: string[];
  deny: string[];
  subjectAttributes: string;
  validityDays: string;
  enabled: boolean;
}

export const NEW_ENDPOINT: EndpointFormValues = {
  protocol: 'SCEP',
  label: '',
  profile: '',
  challenge: 'generate',
  requestsPerMinute: '',
  approval: false,
  allow: [],
  deny: [],
  subjectAttributes: '',
  validityDays: '',
  enabled: true,
};

export function valuesOf(e: StoredEnrolmentEndpoint): EndpointFormValues {
  return {
    protocol: e.protocol,
    label: e.label,
    profile: e.profile ?? '',
    challenge: 'keep',
    requestsPerMinute: e.requestsPerMinute === null ? '' : String(e.requestsPerMinute),
    approval: e.approval,
    allow: e.names?.allow ?? [],
    deny: e.names?.deny ?? [],
    subjectAttributes: e.names?.subjectAttributes?.join(', ') ?? '',
    validityDays: e.validityDays === null ? '' : String(e.validityDays),
    enabled: e.enabled,
  };
}

const CHALLENGES: readonly ChallengeChoice[] = ['keep', 'none', 'generate', 'webhook'];

export function formValues(form: URLSearchParams, editing: boolean): EndpointFormValues {
  const challenge = form.get('challenge') ?? '';
  return {
    protocol: (form.get('protocol') ?? '').trim(),
    label: (form.get('label') ?? '').trim(),
    profile: form.get('profile') ?? '',
    // A form without the field (a script, an older page) changes no challenge when editing, and makes none when adding.
    challenge:
      (CHALLENGES as readonly string[]).includes(challenge) && (editing || challenge !== 'keep')
        ? (challenge as ChallengeChoice)
        : editing
          ? 'keep'
          : 'none',
    requestsPerMinute: (form.get('requests_per_minute') ?? '').trim(),
    approval: form.get('approval') === 'on',
    allow: lines(form.get('allow') ?? ''),
    deny: lines(form.get('deny') ?? ''),
    subjectAttributes: (form.get('subject_attributes') ?? '').trim(),
    validityDays: (form.get('validity_days') ?? '').trim(),
    enabled: form.get('enabled') === 'on',
  };
}

/** '' → null (the default); else a whole number, or a CaError naming the field. */
function wholeNumber(text: string, label: string): number | null {
  if (text === '') return null;
  if (!/^\d{1,9}$/.test(text)) throw new CaError('invalid', `${label}: ${JSON.stringify(text)} is not a whole number.`);
  return Number(text);
}

/** The settings the values give, each entry checked; `generated`: a new static challenge to show once. */
export function settingsOf(values: EndpointFormValues): { settings: EnrolmentEndpointSettings; generated: string | null } {
  const anyName = values.allow.length === 0 && values.deny.length === 0 && values.subjectAttributes === '';
  const settings: EnrolmentEndpointSettings = {
    profile: values.profile === '' ? null : values.profile,
    requestsPerMinute: wholeNumber(values.requestsPerMinute, 'Requests a minute'),
    approval: values.approval,
    names: anyName
      ? null
      : {
          allow: policyNames(values.allow, 'Names allowed:'),
          deny: policyNames(values.deny, 'Names denied:'),
          subjectAttributes:
            values.subjectAttributes === '' ? null : parseSubjectAttributes(values.subjectAttributes, 'Subject attributes'),
        },
    validityDays: wholeNumber(values.validityDays, 'Validity'),
    enabled: values.enabled,
  };
  let generated: string | null = null;
  if (values.challenge !== 'keep') {
    // One kind of challenge per endpoint (one-time challenges work with each), as `--challenge` sets it.
    settings.challengeWebhook = values.challenge === 'webhook';
    settings.challenge = values.challenge === 'generate' ? (generated = generateChallenge()) : null;
  }
  return { settings, generated };
}

const option = (value: string, label: string, selected: string): Html =>
  html`<option value="${value}" ${value === selected ? html` selected` : null}>${label}</option>`;

function select(name: string, label: string, options: Html[]): Html {
  return html`<div class="field">
    <label for="${name}">${label}</label
    ><select id="${name}" name="${name}">
      ${options}
    </select>
  </div>`;
}

/** The fields; `current`: the endpoint edited (its protocol and label are fixed, its challenge may be kept). */
export function endpointFields(values: EndpointFormValues, profiles: Profiles, current: StoredEnrolmentEndpoint | null): Html {
  const challenges: [ChallengeChoice, string][] = [
    ['none', 'none (one-time challenges only)'],
    ['generate', 'a new static challenge (SCEP; shown once)'],
    ['webhook', "the options' challenge webhook"],
  ];
  if (current) challenges.unshift(['keep', `keep (${challengeKind(current)})`]);
  return html`${
    current
      ? null
      : html`${select('protocol', 'Protocol', [option('SCEP', 'SCEP', values.protocol.toUpperCase()), option('EST', 'EST', values.protocol.toUpperCase())])}
        ${textField('label', "Label (letters, digits, '_', '.', '-')", values.label)}`
  }
  ${select('profile', 'Profile', [option('', 'the default profile', values.profile), ...[...profiles.keys()].map((p) => option(p, p, values.profile))])}
  ${select(
    'challenge',
    'Challenge',
    challenges.map(([value, label]) => option(value, label, values.challenge)),
  )}
  ${checkbox('approval', 'Requests wait for an operator’s approval', values.approval)}
  ${namesField('allow', 'Names allowed (empty: any)', values.allow)} ${namesField('deny', 'Names denied', values.deny)}
  ${textField('subject_attributes', 'Subject attributes a request may ask for (comma-separated, e.g. CN, O; empty: any)', values.subjectAttributes)}
  ${textField('validity_days', 'Validity in days (empty: the profile’s)', values.validityDays)}
  ${textField('requests_per_minute', 'Requests a minute, per server process (empty: no limit)', values.requestsPerMinute)}
  ${checkbox('enabled', 'Enabled (its URLs answer)', values.enabled)}`;
}
