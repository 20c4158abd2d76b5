/**
 * A CA's own issuance policy on its admin page (docs/guides/issuance-policy.md, docs/guides/admin-interface.md;
 * `CaRecord.issuancePolicy`): shown with the CA's facts, and changed from the CA form — the keys it
 * certifies (comma-separated kinds of the built-in set; empty: all of them) and the names it allows and
 * denies at every way in (one per line). The settings are checked and made canonical as
 * `ca-admin edit_ca --issuance-*` does (lib/ca/policy/ca-policy-settings.ts), so that one bad entry
 * refuses the whole save before anything is written. The write is the CA's row, in the form's
 * transaction: its `ca.issuance_policy.updated` event names the signed-in user.
 */
import { KEY_KINDS_HELP } from '../ca/policy/ca-keys';
import { issuancePolicyInWords, patchedIssuancePolicy } from '../ca/policy/ca-policy-settings';
import type { CaIssuancePolicy, CaRecord } from '../ports';
import { lines } from './ca-form';
import { namesField, textField } from './fields';
import { html, type Html } from './html';

/** The form's marker: a form without it (an older page, a script) leaves the policy alone. */
export const ISSUANCE_POLICY_FORM_MARKER = 'issuance_policy_form';

const LABELS = {
  keys: 'Issuance policy, keys accepted:',
  allow: 'Issuance policy, names allowed:',
  deny: 'Issuance policy, names denied:',
};

/** What the CA page shows of its issuance policy: each part, "defaults" where it narrows nothing. */
export function issuancePolicyFacts(ca: CaRecord): Html {
  const words = issuancePolicyInWords(ca.issuancePolicy);
  return html`<dl class="fields">
    <dt>Keys accepted</dt>
    <dd>${words.keys}</dd>
    <dt>Names allowed</dt>
    <dd>${words.allow}</dd>
    <dt>Names denied</dt>
    <dd>${words.deny}</dd>
  </dl>`;
}

/** The issuance policy part of the CA's edit form. */
export function issuancePolicyFields(ca: CaRecord): Html {
  const policy = ca.issuancePolicy;
  return html`<fieldset>
    <legend>Issuance policy (every way in)</legend>
    <input type="hidden" name="${ISSUANCE_POLICY_FORM_MARKER}" value="1" />
    ${textField('issuance_keys', `Keys accepted (comma-separated: ${KEY_KINDS_HELP}; empty: all of them)`, policy?.keys?.join(', ') ?? '')}
    ${namesField('issuance_allow', 'Names allowed (empty: any)', [...(policy?.allow ?? [])])}
    ${namesField('issuance_deny', 'Names denied', [...(policy?.deny ?? [])])}
  </fieldset>`;
}

/**
 * The policy a posted CA form sets (null: the built-in one); undefined when the form has no policy
 * part. A bad entry is a CaError with the message for the page.
 */
export function issuancePolicyChange(form: URLSearchParams): CaIssuancePolicy | null | undefined {
  if (form.get(ISSUANCE_POLICY_FORM_MARKER) !== '1') return undefined;
  const keys = (form.get('issuance_keys') ?? '').split(/[\s,]+/).filter((k) => k !== '');
  return patchedIssuancePolicy(
    null,
    { keys: keys.length ? keys : null, allow: lines(form.get('issuance_allow') ?? ''), deny: lines(form.get('issuance_deny') ?? '') },
    LABELS,
  );
}
