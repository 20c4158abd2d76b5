/**
 * A CA's ACME section (docs/guides/admin-interface.md, docs/guides/acme.md): its settings (the REST update's
 * `acme_enabled`, `acme_registration`, `acme_profile`, `acme_requires_contact`) and its policy kept by
 * the ACME store (`AcmeCaPolicy`: external account binding required, names allowed and denied, one
 * per line), shown and read back from the CA form. The names are checked and put in canonical form as
 * `ca-admin edit_ca --acme-allow/--acme-deny` does (lib/acme/policy/entries.ts), so that one bad entry
 * refuses the whole save before anything is written.
 */
import { policyNames } from '../acme/policy/entries';
import type { Profiles } from '../ca/profiles';
import { CaError } from '../ca/errors';
import type { AcmeCaPolicy, CaRecord } from '../ports';
import { lines } from './ca-form';
import { checkbox, namesField } from './fields';
import { html, type Html } from './html';

/** The form's marker: a form without it (an older page, a script) leaves the ACME settings alone. */
export const ACME_FORM_MARKER = 'acme_form';

const listText = (names: string[], none: string): string => (names.length ? names.join(', ') : none);

/** What the CA page shows of ACME (policy null: the store keeps no ACME data). */
export function acmeFacts(ca: CaRecord, policy: AcmeCaPolicy | null): Html {
  return html`<dl class="fields">
    <dt>ACME</dt>
    <dd>${ca.acmeEnabled ? 'enabled' : 'disabled'}</dd>
    <dt>New accounts</dt>
    <dd>
      ${ca.acmeRegistration ? 'allowed' : 'refused'}; contact
      ${ca.acmeRequiresContact ? 'required' : 'optional'}${
        policy ? html`; external account binding ${policy.eabRequired ? 'required' : 'optional'}` : null
      }
    </dd>
    <dt>Profile</dt>
    <dd>${ca.acmeProfile}</dd>
    ${
      policy
        ? html`<dt>Names allowed</dt>
            <dd>${listText(policy.allow, 'any')}</dd>
            <dt>Names denied</dt>
            <dd>${listText(policy.deny, 'none')}</dd>`
        : null
    }
  </dl>`;
}

/** The ACME part of the CA's edit form. */
export function acmeFields(ca: CaRecord, policy: AcmeCaPolicy | null, profiles: Profiles): Html {
  const names = [...profiles.keys()];
  // A profile no longer configured stays selectable, so that saving other fields does not change it.
  if (!names.includes(ca.acmeProfile)) names.unshift(ca.acmeProfile);
  return html`<fieldset>
    <legend>ACME</legend>
    <input type="hidden" name="${ACME_FORM_MARKER}" value="1" />
    ${checkbox('acme_enabled', 'ACME enabled', ca.acmeEnabled)}
    ${checkbox('acme_registration', 'New ACME accounts allowed', ca.acmeRegistration)}
    ${checkbox('acme_requires_contact', 'New ACME accounts must give a contact', ca.acmeRequiresContact)}
    <div class="field">
      <label for="acme_profile">Profile of certificates issued through ACME</label
      ><select id="acme_profile" name="acme_profile">
        ${names.map((p) => html`<option value="${p}" ${p === ca.acmeProfile ? html` selected` : null}>${p}</option>`)}
      </select>
    </div>
    ${
      policy
        ? html`${checkbox('acme_eab_required', 'New ACME accounts need an external account binding', policy.eabRequired)}
          ${namesField('acme_allow', 'Names allowed (empty: any)', policy.allow)} ${namesField('acme_deny', 'Names denied', policy.deny)}`
        : null
    }
  </fieldset>`;
}

export interface AcmeFormChange {
  /** The REST update body's ACME fields (checked with the others by `caPatchFromBody`). */
  body: Record<string, unknown>;
  /** The new policy, checked and canonical; null: the store keeps none, or the form had no ACME part. */
  policy: AcmeCaPolicy | null;
}

/**
 * The ACME fields of a posted CA form; null when it has no ACME part. A profile not configured (other
 * than the CA's current one) or a bad name is a CaError with the message for the page.
 */
export function acmeChange(form: URLSearchParams, ca: CaRecord, profiles: Profiles, keepsPolicy: boolean): AcmeFormChange | null {
  if (form.get(ACME_FORM_MARKER) !== '1') return null;
  const on = (name: string) => form.get(name) === 'on';
  const profile = (form.get('acme_profile') ?? '').trim();
  if (profile !== ca.acmeProfile && !profiles.has(profile))
    throw new CaError('invalid', `${profile || '(empty)'}: Profile is not defined.`);
  const body = {
    acme_enabled: on('acme_enabled'),
    acme_registration: on('acme_registration'),
    acme_requires_contact: on('acme_requires_contact'),
    acme_profile: profile,
  };
  if (!keepsPolicy) return { body, policy: null };
  return {
    body,
    policy: {
      eabRequired: on('acme_eab_required'),
      allow: policyNames(lines(form.get('acme_allow') ?? ''), 'Names allowed:'),
      deny: policyNames(lines(form.get('acme_deny') ?? ''), 'Names denied:'),
    },
  };
}
